package api

import (
	"net/http"

	"github.com/caddy-ark/caddy-ark/internal/sameorigin"
)

// checkNotCrossSite refuses, 403, a request of a person that may change
// something (any method but GET and HEAD) when the browser says that
// another site's page, or another origin of this one, sent it: a person's
// credentials (basic_auth's, cached by the browser, or the identity
// provider's cookie behind forward_auth) go with every request a browser
// makes, and a form type or none needs no CORS preflight. A key is never
// sent by a browser by itself, so requests with keys are not checked.
func checkNotCrossSite(r *http.Request) error {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	if err := sameorigin.Check(r); err != nil {
		return refuse(http.StatusForbidden, "a person's change sent by a browser from another site or origin (%v) is refused: make it in this site's console, from a program such as curl, or with a key (Authorization: Bearer <key>)", err)
	}
	return nil
}
