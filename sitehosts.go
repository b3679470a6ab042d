package ark

import (
	"net"
	"net/http"
	"strings"
	"sync"

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
}

// match returns r's host, spelled for a link, when it is one the server
// it arrived on is configured for by name, on a port it listens on: the
// host matchers ignore the port, so a forged "example.org:1" would
// otherwise pass. The host is rebuilt from the name that matched
// (lowercase, brackets only around an IPv6 address), since the matchers
// also strip brackets ("[example.org]" matches example.org).
func (s *siteHosts) match(r *http.Request) (string, bool) {
	srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if !ok {
		return "", false
	}
	site, ok := s.byServer.Load(srv)
	if !ok {
		site, _ = s.byServer.LoadOrStore(srv, newServerSite(srv))
	}
	name, port, err := net.SplitHostPort(r.Host)
	hasPort := err == nil
	if !hasPort {
		name = strings.TrimSuffix(strings.TrimPrefix(r.Host, "["), "]")
	}
	if hasPort && !site.(*serverSite).ports[port] {
		return "", false
	}
	for _, m := range site.(*serverSite).hosts {
		if m.Match(r) {
			return linkHost(name, port, hasPort), true
		}
	}
	return "", false
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
