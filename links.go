package ark

import (
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// siteBase returns the URL under which this handler serves identifiers,
// without a trailing "/": the request's scheme and host, then the service
// prefix. When the Host header holds a byte that may not stand in a URL,
// it returns the prefix alone, so that links are path-absolute references.
func siteBase(r *http.Request) string {
	host := requestHost(r)
	if host == "" {
		return servicePrefix(r)
	}
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	return scheme + host + servicePrefix(r)
}

// requestHost returns the request's host and port, or "" when it holds a
// byte that may not stand in a URL.
func requestHost(r *http.Request) string {
	if strings.ContainsFunc(r.Host, notHostChar) {
		return ""
	}
	return r.Host
}

// servicePrefix returns the path prefix that routing stripped before the
// handler saw the request ("/resolver" for handle_path /resolver/*), or "".
func servicePrefix(r *http.Request) string {
	orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request)
	if !ok || orig.URL == nil {
		return ""
	}
	full, here := orig.URL.EscapedPath(), r.URL.EscapedPath()
	if !strings.HasSuffix(full, here) {
		return ""
	}
	return full[:len(full)-len(here)]
}

// notHostChar reports whether c may not appear in a URL's host and port.
func notHostChar(c rune) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return false
	}
	return !strings.ContainsRune("-._~:[]%!$&'()*+,;=", c)
}

// identifierURL is the canonical URL of the identifier key on this site.
func identifierURL(r *http.Request, key string) string {
	return siteBase(r) + "/" + key
}

// infoURL is the URL of the metadata about the identifier key.
func infoURL(r *http.Request, key string) string {
	return identifierURL(r, key) + "?info"
}

// addLinks adds the Link headers of an answer for a resolved identifier:
// describedby to its metadata (ARKs only: ?info is not URN syntax), and
// cite-as (RFC 8574) to its canonical URL when it is served in place.
func addLinks(h http.Header, r *http.Request, res *resolution) {
	switch res.outcome {
	case outcomeInPlace, outcomeRedirect, outcomeRelated, outcomeGone:
	default:
		return
	}
	if res.isARK {
		h.Add("Link", "<"+infoURL(r, res.key)+`>; rel="describedby"`)
	}
	if res.outcome == outcomeInPlace {
		h.Add("Link", "<"+identifierURL(r, res.key)+`>; rel="cite-as"`)
	}
}
