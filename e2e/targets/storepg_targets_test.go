package targets

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// TestPostgresTargetsOneNodeChecks: two Caddy processes (this one and a
// child) check the targets of one PostgreSQL store. One checks at a time,
// as the origin sees from the User-Agent of each request; both report
// what it found; when it stops, the other takes the checks over.
func TestPostgresTargetsOneNodeChecks(t *testing.T) {
	var mu sync.Mutex
	agents := map[string]int{}
	o := startTargetOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents[r.UserAgent()]++
		mu.Unlock()
		if r.URL.Path != "/ok" {
			http.NotFound(w, r)
		}
	})
	seen := func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range agents {
			out[k] = v
		}
		return out
	}
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{
		{ID: "ark:12345/t1", Target: o.URL + "/ok"},
		{ID: "ark:12345/t2", Target: o.URL + "/dead"},
	})
	body := func(node string) string {
		return strings.Replace(caddytest.APISiteBody("BOLT", tablePath, `targets_check {
			interval 1s
			host_interval 10ms
			failures 2
			allow_private
			user_agent `+node+`
		}`), "store bolt BOLT", "store postgres "+dsn, 1)
	}
	a := &caddytest.APISite{Site: caddytest.StartSite(t, body("node-a")), Table: tablePath}
	testkit.WaitFor(t, "node a to check", func() bool { return seen()["node-a"] > 0 })
	b := caddytest.StartNode(t, body("node-b"), tablePath)

	// Both report what node a found, and node b never checks meanwhile.
	// (New targets are first due at times spread over the interval: the
	// dead one may be broken before the ok one is first checked.)
	for _, n := range []*caddytest.APISite{a, b} {
		testkit.WaitFor(t, "the ok target ok and the dead one broken on "+n.Base, func() bool {
			broken, ok := reportLines(t, n.Call(http.MethodGet, "/targets?status=broken", "editor", "").Body)["ark:12345/t2"]
			good, okToo := reportLines(t, n.Call(http.MethodGet, "/targets?status=ok", "editor", "").Body)["ark:12345/t1"]
			return ok && broken.Code == "404" && okToo && good.Checked != nil
		})
	}
	checkedByA := seen()["node-a"]
	testkit.WaitFor(t, "node a to check twice more", func() bool { return seen()["node-a"] >= checkedByA+4 })
	if got := seen(); got["node-b"] != 0 {
		t.Fatalf("node b checked while node a held the lease: %v", got)
	}

	// Node a stops, giving the lease up; node b takes over.
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped := seen()["node-a"]
	testkit.WaitFor(t, "node b to check", func() bool { return seen()["node-b"] >= 4 })
	if got := seen(); got["node-a"] != stopped {
		t.Errorf("node a checked after it stopped: %v", got)
	}
	if l := reportLines(t, b.Call(http.MethodGet, "/targets?status=broken", "editor", "").Body)["ark:12345/t2"]; l.Failures < 2 {
		t.Errorf("node b's report after it took over: %+v", l)
	}
}
