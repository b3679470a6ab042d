package sameorigin

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Check returns nil when r may come from the site's own pages or from a
// program, and otherwise an error that says which header shows it comes
// from elsewhere:
//
//   - Sec-Fetch-Site, when the browser sends it, must be "same-origin" or
//     "none" (the person typed the address or used a bookmark):
//     "cross-site", and "same-site" (another subdomain, or another port of
//     the same host), are refused;
//   - Origin, when the browser sends it, must name r's own host and port,
//     with the scheme https if r came over TLS: another host, another
//     port, and "null" (a sandboxed page, a file, a redirect from
//     elsewhere) are refused.
//
// A request with neither header is not a browser's from another site:
// every browser since 2020 sends Origin with a POST, PUT, PATCH or DELETE
// made by another site's page (a fetch in no-cors mode, sendBeacon, a
// form), so such a request is a program's (curl) or a very old browser's.
// Check does not look at the method: the caller decides which requests
// change something.
func Check(r *http.Request) error {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return fmt.Errorf("the browser sent Sec-Fetch-Site: %s", site)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	switch {
	case err != nil || u.Host == "":
		return fmt.Errorf("the browser sent Origin: %s", origin)
	case !strings.EqualFold(u.Host, r.Host):
		return fmt.Errorf("the browser sent Origin: %s, not this site's host %s", origin, r.Host)
	case r.TLS != nil && !strings.EqualFold(u.Scheme, "https"):
		return fmt.Errorf("the browser sent Origin: %s, a page not served over https", origin)
	}
	return nil
}
