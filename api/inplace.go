package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/table"
)

// checkInPlace checks the in_place prefixes of the API's configuration.
func (a *API) checkInPlace() error {
	for _, p := range a.InPlace {
		switch {
		case !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?#"):
			return fmt.Errorf(`api: in_place %q: a path starting with "/", such as /objects/`, p)
		case urlpath.HiddenSegment(p):
			return fmt.Errorf("api: in_place %q: no in-place target could be under it: %s", p, table.ErrHiddenInPlace)
		}
	}
	return nil
}

// inPlace refuses, 400, the target of a binding of key that the API may
// not serve in place.
func (a *API) inPlace(key, target string, status int) error {
	if err := table.CheckUntrustedInPlace(target, status, a.InPlace); err != nil {
		return refuse(http.StatusBadRequest, "%s: %v", key, err)
	}
	return nil
}
