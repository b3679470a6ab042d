package ark

import (
	"net/http"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// siteHosts remembers, for each server a handler runs in, the host
// matchers of the server's routes: the names the site is configured for.
type siteHosts struct {
	byServer sync.Map // *caddyhttp.Server -> []caddyhttp.MatchHost
}

// match reports whether r's host is one the server it arrived on is
// configured for by name.
func (s *siteHosts) match(r *http.Request) bool {
	srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if !ok {
		return false
	}
	hosts, ok := s.byServer.Load(srv)
	if !ok {
		hosts, _ = s.byServer.LoadOrStore(srv, hostMatchers(srv))
	}
	for _, m := range hosts.([]caddyhttp.MatchHost) {
		if m.Match(r) {
			return true
		}
	}
	return false
}

// hostMatchers returns the host matchers of srv's routes.
func hostMatchers(srv *caddyhttp.Server) []caddyhttp.MatchHost {
	var hosts []caddyhttp.MatchHost
	for _, route := range srv.Routes {
		for _, set := range route.MatcherSets {
			for _, m := range set {
				switch m := m.(type) {
				case caddyhttp.MatchHost:
					hosts = append(hosts, m)
				case *caddyhttp.MatchHost:
					hosts = append(hosts, *m)
				}
			}
		}
	}
	return hosts
}
