package ark

import (
	"net/http"
	"path"
	"strings"

	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// self says where this site's links to itself point, for one request.
type self struct {
	// base is the URL identifiers are appended to, without a trailing "/":
	// base_url, or the scheme, host and service prefix; the prefix alone,
	// making links path-absolute references, when the host is not known.
	base string
	// who names the site in ?info's commitment: the organization when
	// configured, else base_url's host, or the request's host when it is
	// known; "" otherwise.
	who string
}

// self returns where links to this site point for r: base_url when the
// operator set it; else the request's scheme and host when the server's
// routes match that host by name (a request that reached a catch-all site
// could carry any Host, which would then be reflected into links and
// cached by shared caches); else path-absolute references.
func (h *Handler) self(r *http.Request) self {
	at := h.base
	if at.base == "" {
		at = requestSelf(r, h.siteHosts.match)
	}
	if h.Organization != "" {
		at.who = h.Organization
	}
	return at
}

// requestSelf returns where links point for r without base_url: its
// scheme and the host that match finds the site configured for.
func requestSelf(r *http.Request, match func(*http.Request) (string, bool)) self {
	prefix := servicePrefix(r)
	host, known := match(r)
	if !known || strings.ContainsFunc(host, notHostChar) {
		return self{base: prefix}
	}
	if r.TLS != nil {
		return self{base: "https://" + host + prefix, who: host}
	}
	return self{base: "http://" + host + prefix, who: host}
}

// servicePrefix returns the path prefix that routing stripped before the
// handler saw the request ("/resolver" for handle_path /resolver/*), or ""
// (also when it starts with "//").
func servicePrefix(r *http.Request) string {
	orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request)
	if !ok || orig.URL == nil {
		return ""
	}
	full, here := orig.URL.EscapedPath(), r.URL.EscapedPath()
	if !strings.HasSuffix(full, here) {
		return ""
	}
	prefix := full[:len(full)-len(here)]
	if strings.HasPrefix(prefix, "//") {
		// A rewrite took away a part the client chose; "//host" would make
		// every path-absolute link and redirect name that host.
		return ""
	}
	if prefix == "" {
		return ""
	}
	// As the site is configured, not as the client spelled it:
	// "/x/../resolver", "/resolver//" and "/resolver/." are "/resolver".
	if prefix = path.Clean(prefix); prefix == "/" {
		return ""
	}
	return prefix
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
func (s self) identifierURL(key string) string {
	return s.base + "/" + key
}

// infoURL is the URL of the metadata about the identifier key.
func (s self) infoURL(key string) string {
	return s.identifierURL(key) + "?info"
}

// addLinks adds the Link headers of an answer for a resolved identifier:
// describedby to its metadata (ARKs only: ?info is not URN syntax), and
// cite-as (RFC 8574) to its canonical URL when it is served in place.
func (s self) addLinks(h http.Header, res *resolve.Resolution) {
	switch res.Outcome {
	case resolve.OutcomeInPlace, resolve.OutcomeRedirect, resolve.OutcomeRelated, resolve.OutcomeGone:
	default:
		return
	}
	if res.IsARK {
		h["Link"] = append(h["Link"], "<"+s.base+"/"+res.Key+`?info>; rel="describedby"`)
	}
	if res.Outcome == resolve.OutcomeInPlace {
		h["Link"] = append(h["Link"], "<"+s.base+"/"+res.Key+`>; rel="cite-as"`)
	}
}
