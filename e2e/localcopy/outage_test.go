package localcopy

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// answer is what a node says of an identifier.
type answer struct {
	status   int
	location string
}

// answers asks n for every id.
func answers(n *node, ids []string) map[string]answer {
	got := map[string]answer{}
	for _, id := range ids {
		a := n.Get("/" + id)
		got[id] = answer{a.Status, a.Location}
	}
	return got
}

// sameAnswers fails for every id n answers otherwise than want says.
func sameAnswers(t *testing.T, when string, n *node, want map[string]answer) {
	t.Helper()
	wrong := 0
	for id, w := range want {
		a := n.Get("/" + id)
		if (answer{a.Status, a.Location}) != w {
			wrong++
			if wrong <= 10 {
				t.Errorf("%s: %s: %d %q (%s), want %d %q", when, id, a.Status, a.Location, a.Body, w.status, w.location)
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%s: %d of %d identifiers answered otherwise", when, wrong, len(want))
	}
}

// TestLocalCopyThroughAPostgresOutage: a node with local_copy, on a
// PostgreSQL store that another writer (a second node) changes too.
// PostgreSQL then crashes (immediate shutdown): every identifier still
// gets its own answer, the withdrawals made before the crash (by this
// node and by the other) included, and a minted-not-bound name and an
// unknown one stay 404; writes are refused with 503 and Retry-After and
// nothing of them is kept; the readiness check stays 200, saying the
// store is unavailable and how far behind the copy may be. The node,
// killed and started again while the server is still down, answers every
// identifier from its copy. Once the server is back, writes succeed
// without a reload.
func TestLocalCopyThroughAPostgresOutage(t *testing.T) {
	cl := testkit.StartPostgres(t)
	dsn := cl.CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	other := testkit.Provision(t, &postgres.Store{DSN: dsn, Timeout: caddy.Duration(500 * time.Millisecond)})
	ctx := context.Background()
	const bound = 300
	if _, err := other.Import(ctx, storetest.Bindings(bound), "other"); err != nil {
		t.Fatal(err)
	}
	write := func(b store.Binding) {
		t.Helper()
		if _, err := other.Apply(ctx, store.Write{Binding: b, By: "other"}); err != nil {
			t.Fatal(err)
		}
	}
	write(store.Binding{Key: storetest.Key(5), Status: 410, Reason: "withdrawn by the other node before the copy was built"})
	write(store.Binding{Key: storetest.Key(6), Target: "https://repo.example.org/pass/", Status: 302, Passthrough: true})
	if _, err := other.Reserve(ctx, []store.Binding{{Key: storetest.Key(100000)}}, "other"); err != nil {
		t.Fatal(err)
	}

	copyDir := t.TempDir()
	body := siteBody("store postgres "+dsn, tablePath, copyDir)
	n := startNode(t, body, tablePath)

	// This node's own withdrawal and binding are answered as soon as
	// the API has acknowledged them.
	if got := n.Call("POST", "/withdraw/"+storetest.Key(7), "editor", `{"reason": "withdrawn through this node"}`); got.Status != http.StatusOK {
		t.Fatalf("withdraw: %d %s", got.Status, got.Body)
	}
	if got := n.Get("/" + storetest.Key(7)); got.Status != http.StatusGone {
		t.Errorf("%s just withdrawn through this node: %d %q", storetest.Key(7), got.Status, got.Location)
	}
	fresh := storetest.Key(400000)
	if got := n.Call("PUT", "/id/"+fresh, "editor", `{"target": "https://repo.example.org/fresh"}`); got.Status != http.StatusCreated {
		t.Fatalf("bind: %d %s", got.Status, got.Body)
	}
	if got := n.Get("/" + fresh); got.Status != http.StatusFound || got.Location != "https://repo.example.org/fresh" {
		t.Errorf("%s just bound through this node: %d %q", fresh, got.Status, got.Location)
	}
	// The other node's withdrawal just before the crash, of an
	// identifier this node has answered (and cached) as live: this node
	// has heard of it before the crash.
	for range 2 {
		if got := n.Get("/" + storetest.Key(8)); got.Status != http.StatusFound {
			t.Fatalf("%s before its withdrawal: %d", storetest.Key(8), got.Status)
		}
	}
	write(store.Binding{Key: storetest.Key(8), Status: 410, Reason: "withdrawn by the other node just before the crash"})
	testkit.WaitFor(t, "the node to hear of the other node's withdrawal", func() bool {
		return n.Get("/"+storetest.Key(8)).Status == http.StatusGone
	})

	ids := []string{storetest.Key(100000), storetest.Key(6) + "/c1/s2.pdf", fresh, "ark:12345/x5nothere"}
	for i := range bound {
		ids = append(ids, storetest.Key(i))
	}
	want := answers(n, ids)
	for _, id := range ids {
		if want[id].status == http.StatusServiceUnavailable {
			t.Fatalf("%s: 503 before the crash", id)
		}
	}
	for id, status := range map[string]int{storetest.Key(5): 410, storetest.Key(7): 410, storetest.Key(8): 410, storetest.Key(100000): 404,
		"ark:12345/x5nothere": 404, storetest.Key(6) + "/c1/s2.pdf": 302, storetest.Key(0): 302} {
		if want[id].status != status {
			t.Errorf("%s before the crash: %d, want %d", id, want[id].status, status)
		}
	}

	waitCopyCurrent(t, n)
	if err := cl.Crash(); err != nil {
		t.Fatal(err)
	}
	sameAnswers(t, "PostgreSQL crashed", n, want)

	refused := n.Call("PUT", "/id/"+storetest.Key(9), "editor", `{"target": "https://refused.example.org/"}`)
	if refused.Status != http.StatusServiceUnavailable || refused.Header.Get("Retry-After") == "" {
		t.Errorf("a write while PostgreSQL is down: %d Retry-After %q %s; want 503 with Retry-After", refused.Status, refused.Header.Get("Retry-After"), refused.Body)
	}
	ready := n.Get("/ready")
	var rd struct {
		Ready bool   `json:"ready"`
		Store string `json:"store"`
		Copy  *struct {
			State      string  `json:"state"`
			Seq        uint64  `json:"seq"`
			LagSeconds float64 `json:"lag_seconds"`
			Following  bool    `json:"following"`
		} `json:"copy"`
	}
	if err := json.Unmarshal([]byte(ready.Body), &rd); err != nil {
		t.Fatalf("/ready: %v: %s", err, ready.Body)
	}
	t.Logf("/ready while PostgreSQL is down: %s", ready.Body)
	if ready.Status != http.StatusOK || !rd.Ready || rd.Store != "unavailable" || rd.Copy == nil || rd.Copy.State != "serving" || rd.Copy.Seq == 0 {
		t.Errorf("/ready while PostgreSQL is down: %d %s; want 200, ready, the store unavailable and the copy serving", ready.Status, ready.Body)
	}

	n.stop()
	n = startNode(t, body, tablePath)
	sameAnswers(t, "the node restarted while PostgreSQL is down", n, want)
	// Checked, and finding no server to catch up from, the copy on disk
	// serves as it is, and the node says it is ready.
	if got := n.Get("/ready"); got.Status != http.StatusOK || !strings.Contains(got.Body, `"state":"serving"`) || !strings.Contains(got.Body, `"store":"unavailable"`) {
		t.Errorf("/ready of the node restarted while PostgreSQL is down: %d %s", got.Status, got.Body)
	}

	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	testkit.WaitFor(t, "a write to succeed once PostgreSQL is back", func() bool {
		return n.Call("PUT", "/id/"+storetest.Key(9), "editor", `{"target": "https://after.example.org/"}`).Status == http.StatusOK
	})
	t.Logf("a write succeeded %v after PostgreSQL started again", time.Since(start))
	rec := n.Lookup(storetest.Key(9))
	for _, ch := range rec.History {
		if ch.New != nil && ch.New.Target == "https://refused.example.org/" {
			t.Errorf("the write refused during the outage was kept: %+v", ch)
		}
	}
	if got := n.Get("/" + storetest.Key(9)); got.Status != http.StatusFound || got.Location != "https://after.example.org/" {
		t.Errorf("%s after the write: %d %q", storetest.Key(9), got.Status, got.Location)
	}
	want[storetest.Key(9)] = answer{http.StatusFound, "https://after.example.org/"}
	sameAnswers(t, "PostgreSQL back", n, want)
}
