package store

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// TestPostgresAPIUnavailable stops PostgreSQL under a site's API: every
// request that needs the store is answered 503 with Retry-After (never a
// 404, which would say that an identifier is not bound, nor a 500), it
// changes nothing, and the API works again by itself once the server is
// back.
func TestPostgresAPIUnavailable(t *testing.T) {
	c := testkit.StartPostgres(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	s := &caddytest.APISite{Site: caddytest.StartSite(t, caddytest.PGSiteBody(c.CreateDB(t), tablePath)), Table: tablePath}
	if got := s.Call("PUT", "/id/ark:12345/b3up", "editor", `{"target": "https://repo.example.org/up"}`); got.Status != http.StatusCreated {
		t.Fatalf("bind before the outage: %d %s", got.Status, got.Body)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}

	calls := []struct{ method, path, body string }{
		{"GET", "/id/ark:12345/b3up", ""},
		{"GET", "/id/ark:12345/b3never", ""},
		{"PUT", "/id/ark:12345/b3down", `{"target": "https://repo.example.org/down"}`},
		{"POST", "/withdraw/ark:12345/b3up", `{"reason": "test"}`},
		{"POST", "/mint/ark:12345/b3", ""},
		{"POST", "/mint/ark:12345/b3?n=5", `{"target": "https://repo.example.org/{id}"}`},
		{"GET", "/export", ""},
	}
	for _, call := range calls {
		got := s.Call(call.method, call.path, "editor", call.body)
		if got.Status != http.StatusServiceUnavailable || got.Header.Get("Retry-After") == "" || !strings.Contains(got.Body, "unavailable") {
			t.Errorf("%s %s with PostgreSQL stopped: %d Retry-After %q %s; want 503 with Retry-After saying why",
				call.method, call.path, got.Status, got.Header.Get("Retry-After"), got.Body)
		}
	}

	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the API to answer again after the restart", func() bool {
		return s.Call("GET", "/id/ark:12345/b3up", "editor", "").Status == http.StatusOK
	})
	r := s.Lookup("ark:12345/b3up")
	if r.Binding.Status != http.StatusFound || r.Binding.Target != "https://repo.example.org/up" || len(r.History) != 1 {
		t.Errorf("after the outage: %+v with %d changes; the withdrawal refused during it must have changed nothing", r.Binding, len(r.History))
	}
	s.ExpectUnbound("ark:12345/b3down")
	if got := s.Call("POST", "/mint/ark:12345/b3", "editor", ""); got.Status != http.StatusCreated || !strings.Contains(got.Body, "ark:12345/b3") {
		t.Errorf("mint after the outage: %d %s", got.Status, got.Body)
	}
}
