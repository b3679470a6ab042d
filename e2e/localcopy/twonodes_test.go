package localcopy

import (
	"net/http"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddy-ark/caddy-ark/table"
)

// TestLocalCopyTwoNodes: two Caddy processes on one PostgreSQL database,
// each with its own copy. What either binds or withdraws the other
// answers, an identifier it had cached as live included; after
// PostgreSQL crashes, an identifier withdrawn just before is answered
// 410 by both, and so is it by a node restarted during the outage.
func TestLocalCopyTwoNodes(t *testing.T) {
	cl := testkit.StartPostgres(t)
	dsn := cl.CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	bodyA := siteBody("store postgres "+dsn, tablePath, t.TempDir())
	bodyB := siteBody("store postgres "+dsn, tablePath, t.TempDir())
	a, b := startNode(t, bodyA, tablePath), startNode(t, bodyB, tablePath)

	ids := []string{storetest.Key(1), storetest.Key(2), storetest.Key(3), storetest.Key(4)}
	for i, id := range ids {
		from, to := a, b
		if i%2 == 1 {
			from, to = b, a
		}
		if got := from.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/`+id[len("ark:12345/"):]+`"}`); got.Status != http.StatusCreated {
			t.Fatalf("bind %s: %d %s", id, got.Status, got.Body)
		}
		testkit.WaitFor(t, "the other node to answer "+id, func() bool { return to.Get("/"+id).Status == http.StatusFound })
	}
	// Withdrawn through each node just before the crash, after the
	// other had answered (and cached) them as live.
	withdrawn := map[string]*node{ids[0]: a, ids[1]: b}
	for id, from := range withdrawn {
		to := b
		if from == b {
			to = a
		}
		to.Get("/" + id)
		to.Get("/" + id)
		if got := from.Call("POST", "/withdraw/"+id, "editor", `{"reason": "withdrawn just before the crash"}`); got.Status != http.StatusOK {
			t.Fatalf("withdraw %s: %d %s", id, got.Status, got.Body)
		}
		testkit.WaitFor(t, "the other node to answer "+id+" 410", func() bool { return to.Get("/"+id).Status == http.StatusGone })
	}

	waitCopyCurrent(t, a)
	waitCopyCurrent(t, b)
	if err := cl.Crash(); err != nil {
		t.Fatal(err)
	}
	check := func(when string, n *node) {
		t.Helper()
		for _, id := range ids {
			want := http.StatusFound
			if withdrawn[id] != nil {
				want = http.StatusGone
			}
			if got := n.Get("/" + id); got.Status != want {
				t.Errorf("%s: %s: %d %s, want %d", when, id, got.Status, got.Body, want)
			}
		}
	}
	check("node a, PostgreSQL crashed", a)
	check("node b, PostgreSQL crashed", b)
	b.stop()
	b = startNode(t, bodyB, tablePath)
	check("node b restarted while PostgreSQL is down", b)
}
