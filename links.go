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
	origin, host, prefix := baseParts(r)
	return origin + host + prefix
}

// baseParts returns siteBase in three parts, for callers that build a
// longer string with one allocation: "http://" or "https://" (or "" with
// no usable host), the host, and the service prefix.
func baseParts(r *http.Request) (scheme, host, prefix string) {
	prefix = servicePrefix(r)
	if host = requestHost(r); host == "" {
		return "", "", prefix
	}
	if r.TLS != nil {
		return "https://", host, prefix
	}
	return "http://", host, prefix
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
	scheme, host, prefix := baseParts(r)
	if res.isARK {
		h["Link"] = append(h["Link"], "<"+scheme+host+prefix+"/"+res.key+`?info>; rel="describedby"`)
	}
	if res.outcome == outcomeInPlace {
		h["Link"] = append(h["Link"], "<"+scheme+host+prefix+"/"+res.key+`>; rel="cite-as"`)
	}
}
