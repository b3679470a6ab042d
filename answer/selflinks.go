package answer

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// self returns where links to this site point for r: base_url when the
// operator set it; else the request's scheme and host when the server's
// routes match that host by name (a request that reached a catch-all site
// could carry any Host, which would then be reflected into links and
// cached by shared caches); else path-absolute references.
func (an *Answerer) self(r *http.Request) info.Links {
	at := an.base
	if at.Base == "" {
		at = requestSelf(r, an.siteHosts.origin)
	}
	if an.organization != "" {
		at.Who = an.organization
	}
	return at
}

// requestSelf returns where links point for r without base_url: the
// scheme and host that origin finds the site configured for, and the
// service prefix.
func requestSelf(r *http.Request, origin func(*http.Request) (siteOrigin, bool)) info.Links {
	prefix := servicePrefix(r)
	o, known := origin(r)
	if !known {
		return info.Links{Base: prefix}
	}
	return info.Links{Base: o.origin + prefix, Who: o.host}
}

// servicePrefix returns the path prefix that routing stripped before the
// handler saw the request ("/resolver" for handle_path /resolver/*), or ""
// (also when it starts with "//").
func servicePrefix(r *http.Request) string {
	orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request)
	if !ok || orig.URL == nil || orig.URL.Path == r.URL.Path && orig.URL.RawPath == r.URL.RawPath {
		return "" // the path as it came: nothing stripped (most requests; escaping it costs)
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

// ParseBaseURL reads base_url: "" for none, else an absolute http(s) URL
// without user, query or fragment, whose path is kept without its
// trailing "/".
func ParseBaseURL(raw string) (info.Links, error) {
	if raw == "" {
		return info.Links{}, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsFunc(u.Host, notHostChar) {
		return info.Links{}, fmt.Errorf("base_url %q: must be an absolute http(s) URL such as https://example.org, without query or fragment", raw)
	}
	return info.Links{Base: u.Scheme + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/"), Who: u.Host}, nil
}
