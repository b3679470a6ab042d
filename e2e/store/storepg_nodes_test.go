package store

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// startPGNode starts a caddy process (the built binary) serving
// pgSiteBody, and stops it by PID when the test ends.
func startPGNode(t *testing.T, dsn, tablePath string) *caddytest.APISite {
	t.Helper()
	return caddytest.StartNode(t, caddytest.PGSiteBody(dsn, tablePath), tablePath)
}

// eventually polls node for path until check holds, and returns how long
// that took; it fails after a generous deadline.
func eventually(t *testing.T, node *caddytest.APISite, path string, check func(caddytest.Answer) bool) time.Duration {
	t.Helper()
	start := time.Now()
	var last caddytest.Answer
	for time.Since(start) < 20*time.Second {
		if last = node.Get(path); check(last) {
			return time.Since(start)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s: still %d %q (Location %q)", path, last.Status, last.Body, last.Location)
	return 0
}

// redirectsTo checks for a 302 to target.
func redirectsTo(target string) func(caddytest.Answer) bool {
	return func(a caddytest.Answer) bool { return a.Status == http.StatusFound && a.Location == target }
}

// TestPostgresTwoNodes: two Caddy processes on one database (this one
// and a child). What one binds, withdraws and mints through its API, the
// other answers, though it had cached the identifier's previous answer;
// minting on both at once never gives a name twice.
func TestPostgresTwoNodes(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	a := &caddytest.APISite{Site: caddytest.StartSite(t, caddytest.PGSiteBody(dsn, tablePath)), Table: tablePath}
	b := startPGNode(t, dsn, tablePath)

	for _, n := range []struct {
		name     string
		from, to *caddytest.APISite
	}{{"a to b", a, b}, {"b to a", b, a}} {
		id := "ark:12345/x5" + strings.ReplaceAll(n.name, " ", "")
		// Cached as unassigned on the other node first.
		for range 2 {
			if got := n.to.Get("/" + id); got.Status != http.StatusNotFound {
				t.Fatalf("%s: %s before binding: %d %q", n.name, id, got.Status, got.Body)
			}
		}
		if got := n.from.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/one"}`); got.Status >= 300 {
			t.Fatalf("%s: bind: %d %s", n.name, got.Status, got.Body)
		}
		took := eventually(t, n.to, "/"+id, redirectsTo("https://repo.example.org/one"))
		t.Logf("%s: bind seen after %v", n.name, took)

		if got := n.from.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/two"}`); got.Status >= 300 {
			t.Fatalf("%s: rebind: %d %s", n.name, got.Status, got.Body)
		}
		took = eventually(t, n.to, "/"+id, redirectsTo("https://repo.example.org/two"))
		t.Logf("%s: rebind seen after %v", n.name, took)

		if got := n.from.Call("POST", "/withdraw/"+id, "editor", `{"reason": "a duplicate"}`); got.Status >= 300 {
			t.Fatalf("%s: withdraw: %d %s", n.name, got.Status, got.Body)
		}
		took = eventually(t, n.to, "/"+id, func(a caddytest.Answer) bool { return a.Status == http.StatusGone })
		t.Logf("%s: withdrawal seen after %v", n.name, took)

		got := n.from.Call("POST", "/mint/ark:12345/b3", "editor", `{"target": "https://repo.example.org/{id}"}`)
		var minted struct{ IDs []string }
		if err := json.Unmarshal([]byte(got.Body), &minted); err != nil || got.Status != http.StatusCreated || len(minted.IDs) != 1 {
			t.Fatalf("%s: mint: %d %s", n.name, got.Status, got.Body)
		}
		id = minted.IDs[0]
		took = eventually(t, n.to, "/"+id, redirectsTo("https://repo.example.org/"+id))
		t.Logf("%s: minted %s seen after %v", n.name, id, took)
	}

	// Both nodes mint at once: every name once.
	var (
		mu    sync.Mutex
		names = map[string]string{}
		wg    sync.WaitGroup
	)
	for _, node := range []*caddytest.APISite{a, b, a, b} {
		wg.Go(func() {
			for range 10 {
				got := node.Call("POST", "/mint/ark:12345/b3?n=5", "editor", "")
				var minted struct{ IDs []string }
				if err := json.Unmarshal([]byte(got.Body), &minted); err != nil || got.Status != http.StatusCreated {
					t.Errorf("mint on %s: %d %s", node.Base, got.Status, got.Body)
					return
				}
				mu.Lock()
				for _, id := range minted.IDs {
					if other, dup := names[id]; dup {
						t.Errorf("%s minted by %s and by %s", id, other, node.Base)
					}
					names[id] = node.Base
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(names) != 4*10*5 {
		t.Errorf("%d names minted, want %d", len(names), 4*10*5)
	}
}
