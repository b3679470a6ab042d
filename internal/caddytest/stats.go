package caddytest

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/caddy-ark/caddy-ark/stats"
)

// StatsOf is GET stats as key sees it, with query.
func StatsOf(s *APISite, key, query string) *stats.Report {
	s.T.Helper()
	got := s.Call("GET", "/stats"+query, key, "")
	if got.Status != http.StatusOK {
		s.T.Fatalf("GET stats%s as %s: %d %s", query, key, got.Status, got.Body)
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(got.Body), &r); err != nil {
		s.T.Fatalf("GET stats: %v: %s", err, got.Body)
	}
	return &r
}

// ResolveAll requests each path and expects its status.
func ResolveAll(s *APISite, t *testing.T, want map[string]int) {
	t.Helper()
	for path, status := range want {
		if got := s.Get(path); got.Status != status {
			t.Fatalf("GET %s: %d, want %d", path, got.Status, status)
		}
	}
}

// StatsRequests is what the statistics tests ask a site with APISite's table
// and ark:12345/x5b1 bound in the store, with the status of each.
var StatsRequests = map[string]int{
	"/ark:12345/t1":         302, // the table
	"/ark:/12345/t1":        302,
	"/ark:12345/x5b1":       302, // the store
	"/ark:12345/x5nothere":  404, // ours, under no configured shoulder
	"/ark:12345/q9nothere":  404, // under a minter's shoulder
	"/ark:54321/elsewhere":  302, // another NAAN's, to the global resolver
	"/ark:12345/t1%zz":      400,
	"/urn:isbn:978nothere":  404,
	"/ark:12345/x5nothere2": 404,
}
