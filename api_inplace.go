package ark

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

// errHiddenInPlace is why an in-place target from the API or an import is
// refused.
const errHiddenInPlace = `a target served in place may not have a path segment starting with "." (a hidden file, "." or ".."), or a backslash or control character, in any encoding`

// inPlaceTargetError returns why target, with the status it is bound
// with, may not be served in place when a key or an import asks for it:
// it holds a hidden segment, or it is under none of prefixes (when there
// are any). It returns nil for a target that is not served in place.
func inPlaceTargetError(target string, status int, prefixes []string) error {
	if !strings.HasPrefix(target, "/") || (status != 0 && status != http.StatusOK) {
		return nil
	}
	path, _, _ := strings.Cut(target, "?")
	if hiddenSegment(path) {
		return fmt.Errorf("target %q: %s", target, errHiddenInPlace)
	}
	if len(prefixes) > 0 && !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(path, p) }) {
		return fmt.Errorf("target %q: the API binds in-place targets only under in_place %s", target, strings.Join(prefixes, " "))
	}
	return nil
}

// hiddenSegment reports whether a segment of the escaped path, decoded
// once or more, starts with "." or holds a backslash or control character
// (urlpath.DottedSegment).
func hiddenSegment(path string) bool {
	for seg := range strings.SplitSeq(strings.TrimPrefix(path, "/"), "/") {
		if urlpath.DottedSegment(seg) {
			return true
		}
	}
	return false
}

// checkInPlace checks the in_place prefixes of the API's configuration.
func (a *API) checkInPlace() error {
	for _, p := range a.InPlace {
		switch {
		case !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?#"):
			return fmt.Errorf(`api: in_place %q: a path starting with "/", such as /objects/`, p)
		case hiddenSegment(p):
			return fmt.Errorf("api: in_place %q: no in-place target could be under it: %s", p, errHiddenInPlace)
		}
	}
	return nil
}

// inPlace refuses, 400, the target of a binding of key that the API may
// not serve in place.
func (c *apiCall) inPlace(key, target string, status int) error {
	if err := inPlaceTargetError(target, status, c.h.API.InPlace); err != nil {
		return refuse(http.StatusBadRequest, "%s: %v", key, err)
	}
	return nil
}
