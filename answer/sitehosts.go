package answer

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// siteHosts remembers, for each server a handler runs in, the names the
// site is configured for and the ports it listens on.
type siteHosts struct {
	byServer sync.Map // *caddyhttp.Server -> *serverSite
}

// serverSite is what a server is configured for: the host matchers of its
// routes, and the ports of its listeners.
type serverSite struct {
	hosts []caddyhttp.MatchHost
	ports map[string]bool

	// origins remembers the origin ("https://example.org") that links
	// start with for each Host header and scheme that matched, so that a
	// request for a known host builds no string; at most maxOrigins, since
	// a wildcard host matcher lets clients choose many.
	origins  sync.Map // originKey -> siteOrigin
	nOrigins atomic.Int32
}

// maxOrigins bounds how many origins a server's site remembers.
const maxOrigins = 64

// originKey is a Host header as a request sent it, and whether the
// request came over TLS.
type originKey struct {
	host string
	tls  bool
}

// siteOrigin is where links to this site start for one Host header.
type siteOrigin struct {
	// origin is the scheme and host, "https://example.org".
	origin string
	// host is the host as spelled in origin, "example.org".
	host string
}

// origin returns where links to this site start for r, when r's host is
// one the server it arrived on is configured for by name (see match) and
// may stand in a URL as it is spelled.
func (s *siteHosts) origin(r *http.Request) (siteOrigin, bool) {
	site := s.site(r)
	if site == nil || len(site.hosts) == 0 {
		return siteOrigin{}, false // no host to match: a catch-all site such as ":80", as most are
	}
	key := originKey{r.Host, r.TLS != nil}
	if o, ok := site.origins.Load(key); ok {
		return o.(siteOrigin), true
	}
	host, ok := site.match(r)
	if !ok || strings.ContainsFunc(host, notHostChar) {
		return siteOrigin{}, false
	}
	o := siteOrigin{origin: "http://" + host, host: host}
	if key.tls {
		o.origin = "https://" + host
	}
	if n := site.nOrigins.Load(); n < maxOrigins && site.nOrigins.CompareAndSwap(n, n+1) {
		site.origins.Store(key, o)
	}
	return o, true
}

// match returns r's host, spelled for a link, when it is one the server
// it arrived on is configured for by name, on a port it listens on: the
// host matchers ignore the port, so a forged "example.org:1" would
// otherwise pass. The host is rebuilt from the name that matched
// (lowercase, brackets only around an IPv6 address), since the matchers
// also strip brackets ("[example.org]" matches example.org).
func (site *serverSite) match(r *http.Request) (string, bool) {
	name, port, err := net.SplitHostPort(r.Host)
	hasPort := err == nil
	if !hasPort {
		name = strings.TrimSuffix(strings.TrimPrefix(r.Host, "["), "]")
	}
	if hasPort && !site.ports[port] {
		return "", false
	}
	for _, m := range site.hosts {
		if m.Match(r) {
			return linkHost(name, port, hasPort), true
		}
	}
	return "", false
}

// site returns what the server r arrived on is configured for, nil when
// r came through no server.
func (s *siteHosts) site(r *http.Request) *serverSite {
	srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if !ok {
		return nil
	}
	site, ok := s.byServer.Load(srv)
	if !ok {
		site, _ = s.byServer.LoadOrStore(srv, newServerSite(srv))
	}
	return site.(*serverSite)
}

// linkHost spells a host name and port for a URL.
func linkHost(name, port string, hasPort bool) string {
	host := strings.ToLower(name)
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if hasPort {
		host += ":" + port
	}
	return host
}

// ServerHostName returns the first name that srv's routes are configured
// for that is not a wildcard, "" when there is none.
func ServerHostName(srv *caddyhttp.Server) string {
	for _, m := range newServerSite(srv).hosts {
		for _, name := range m {
			if !strings.Contains(name, "*") {
				return name
			}
		}
	}
	return ""
}

// newServerSite reads srv's host matchers and the ports it listens on.
func newServerSite(srv *caddyhttp.Server) *serverSite {
	site := &serverSite{ports: make(map[string]bool)}
	for _, route := range srv.Routes {
		for _, set := range route.MatcherSets {
			for _, m := range set {
				switch m := m.(type) {
				case caddyhttp.MatchHost:
					site.hosts = append(site.hosts, m)
				case *caddyhttp.MatchHost:
					site.hosts = append(site.hosts, *m)
				}
			}
		}
	}
	for _, l := range srv.Listeners() {
		if _, port, err := net.SplitHostPort(l.Addr().String()); err == nil {
			site.ports[port] = true
		}
	}
	return site
}

// notHostChar reports whether c may not appear in a URL's host and port.
func notHostChar(c rune) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return false
	}
	return !strings.ContainsRune("-._~:[]%!$&'()*+,;=", c)
}
