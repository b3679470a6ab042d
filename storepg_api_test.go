package ark

import (
	"net/http"
	"strings"
	"testing"

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
	s := &apiSite{site: startSite(t, pgSiteBody(c.CreateDB(t), tablePath)), table: tablePath}
	if got := s.call("PUT", "/id/ark:12345/b3up", "editor", `{"target": "https://repo.example.org/up"}`); got.status != http.StatusCreated {
		t.Fatalf("bind before the outage: %d %s", got.status, got.body)
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
		got := s.call(call.method, call.path, "editor", call.body)
		if got.status != http.StatusServiceUnavailable || got.header.Get("Retry-After") == "" || !strings.Contains(got.body, "unavailable") {
			t.Errorf("%s %s with PostgreSQL stopped: %d Retry-After %q %s; want 503 with Retry-After saying why",
				call.method, call.path, got.status, got.header.Get("Retry-After"), got.body)
		}
	}

	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the API to answer again after the restart", func() bool {
		return s.call("GET", "/id/ark:12345/b3up", "editor", "").status == http.StatusOK
	})
	r := s.lookup("ark:12345/b3up")
	if r.Binding.Status != http.StatusFound || r.Binding.Target != "https://repo.example.org/up" || len(r.History) != 1 {
		t.Errorf("after the outage: %+v with %d changes; the withdrawal refused during it must have changed nothing", r.Binding, len(r.History))
	}
	s.expectUnbound("ark:12345/b3down")
	if got := s.call("POST", "/mint/ark:12345/b3", "editor", ""); got.status != http.StatusCreated || !strings.Contains(got.body, "ark:12345/b3") {
		t.Errorf("mint after the outage: %d %s", got.status, got.body)
	}
}
