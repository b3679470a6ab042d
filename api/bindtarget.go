package api

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/internal/visible"
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

// checkTarget refuses, 400, the target of a binding of key that the API
// may not bind, beyond what a table may not: one that holds a character
// that does not show as itself (visible.Invisible: a right-to-left
// override can make it read as another address), or one it may not serve
// in place. Every binding the API writes is checked so: PUT, PATCH, bulk,
// a mint's target, import, retarget and undo.
func (a *API) checkTarget(key, target string, status int) error {
	if i := strings.IndexFunc(target, visible.Invisible); i >= 0 {
		c, _ := utf8.DecodeRuneInString(target[i:])
		return refuse(http.StatusBadRequest, "%s: target holds U+%04X at byte %d, a character that does not show as itself; write it percent-encoded, %s", key, c, i, visible.PercentEncode(string(c)))
	}
	if err := table.CheckUntrustedInPlace(target, status, a.InPlace); err != nil {
		return refuse(http.StatusBadRequest, "%s: %v", key, err)
	}
	return nil
}
