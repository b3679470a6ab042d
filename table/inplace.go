package table

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
)

// A key is not the operator's word. An in-place target is served by the
// handler after ark (file_server, say) as if the site's own route had
// asked for it, past any matcher that hides files from requests: a key
// that could bind "/.env" would publish it. So in-place targets from the
// API and from imports obey the rule that requests obey (internal/urlpath):
// no path segment that starts with "." (a hidden file, "." or ".."), or
// holds a backslash or control character, in any encoding. The operator's
// own tables and Caddyfile are not limited. Redirects are not limited either:
// the client asks for their URL itself, and resolving never fetches a
// target, so a redirect to a private address reveals nothing.

// ErrHiddenInPlace is why an in-place target from the API or an import is
// refused.
const ErrHiddenInPlace = `a target served in place may not have a path segment starting with "." (a hidden file, "." or ".."), or a backslash or control character, in any encoding`

// CheckUntrustedInPlace returns why target, with the status it is bound
// with, may not be served in place when a key or an import asks for it:
// it holds a hidden segment, or it is under none of prefixes (when there
// are any). It returns nil for a target that is not served in place.
func CheckUntrustedInPlace(target string, status int, prefixes []string) error {
	if !strings.HasPrefix(target, "/") || (status != 0 && status != http.StatusOK) {
		return nil
	}
	path, _, _ := strings.Cut(target, "?")
	if urlpath.HiddenSegment(path) {
		return fmt.Errorf("target %q: %s", target, ErrHiddenInPlace)
	}
	if len(prefixes) > 0 && !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(path, p) }) {
		return fmt.Errorf("target %q: the API binds in-place targets only under in_place %s", target, strings.Join(prefixes, " "))
	}
	return nil
}
