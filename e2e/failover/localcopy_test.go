package failover

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/localcopy"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// copyNodeBody is nodeBody (reads from the servers dsn names) with a
// local copy in copyDir and the readiness check at /healthz/ark.
func copyNodeBody(tablePath, dsn, copyDir string) string {
	return strings.Replace(nodeBody(tablePath, dsn, ""), "cache_size 256", "cache_size 256\n\t\tlocal_copy "+copyDir, 1)
}

// copyNode is a caddy process with a local copy, which the test kills
// and starts again; requests to it hold mu for reading, a restart holds
// it for writing.
type copyNode struct {
	mu   sync.RWMutex
	site *caddytest.APISite
	body string
}

// copyReadiness is the part of a node's readiness answer that says how
// its copy is.
type copyReadiness struct {
	Ready bool
	Copy  *localcopy.Status
}

// copyReady asks base's readiness check.
func copyReady(t *testing.T, base string) copyReadiness {
	t.Helper()
	got := ask(base, "GET", "/healthz/ark", "")
	var rd copyReadiness
	if err := json.Unmarshal([]byte(got.body), &rd); err != nil || got.err != nil {
		t.Fatalf("readiness of %s: %d %q: %v %v", base, got.status, got.body, err, got.err)
	}
	return rd
}

// expected is the answer a node owes for an identifier: its status,
// and for a redirect its Location.
type expected struct {
	status   int
	location string
}

// owed is the answer a binding of the store makes a node owe.
func owed(b *store.Binding) expected {
	switch b.Status {
	case 0:
		return expected{status: http.StatusNotFound}
	case http.StatusGone:
		return expected{status: http.StatusGone}
	default:
		return expected{b.Status, b.Target}
	}
}

// matches reports whether got is the answer want.
func (want expected) matches(got answer) bool {
	return got.err == nil && got.status == want.status && (want.location == "" || got.location == want.location)
}

// checkEvery asks base for every identifier of want, eight at a time,
// and returns how many were answered otherwise, with a few of them.
func checkEvery(base string, want map[string]expected) (int, []string) {
	keys := make(chan string)
	var (
		mu      sync.Mutex
		wrong   int
		samples []string
		wg      sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			for key := range keys {
				if got := ask(base, "GET", "/"+key, ""); !want[key].matches(got) {
					mu.Lock()
					wrong++
					if len(samples) < 5 {
						samples = append(samples, fmt.Sprintf("%s: %d %q %v, want %d %q", key, got.status, got.location, got.err, want[key].status, want[key].location))
					}
					mu.Unlock()
				}
			}
		})
	}
	for key := range want {
		keys <- key
	}
	close(keys)
	wg.Wait()
	return wrong, samples
}

// TestFailoverWithLocalCopies: two caddy processes, whose dsn names a
// primary and its synchronous hot standby (read-write), each with a
// local copy, resolve 10^5 bound identifiers (some withdrawn, some
// minted and not bound) under a bounded load (4 clients). The primary
// is killed with SIGKILL under the load: every answer before, during and
// after the outage is the identifier's own (no 503, no 404, none wrong);
// writes during the outage are refused with 503 and Retry-After and
// nothing of them is kept; a node killed and started again while no
// server takes writes and the old primary is gone answers every
// identifier from its copy; after `pg_ctl promote` writes are accepted
// on both nodes without a reload (the time to the first accepted write
// is logged). An identifier withdrawn through one node just before the
// kill, while the other was stopped (SIGSTOP) and so had not heard of it,
// is never answered live by the first afterwards, nor by the second once
// it has answered otherwise or later than liveBound after it went on
// (SIGCONT), and is 410 on both in the end. Afterwards
// the store holds what was written and both nodes answer every binding
// as the store says.
func TestFailoverWithLocalCopies(t *testing.T) {
	const (
		bound    = 100_000 // the figure: 87–129 s on a loaded 2-core machine
		withdraw = 997     // every withdraw-th bound identifier is withdrawn
		reserved = 50      // minted, not bound: Key(bound) to Key(bound+reserved-1)
	)
	r := testkit.StartReplicated(t)
	db := r.CreateDB(t)
	dsn := r.DSN(db, "read-write")
	ctx := context.Background()
	st := testkit.Provision(t, &postgres.Store{DSN: dsn, Schema: postgres.DefaultSchema, Timeout: caddy.Duration(5 * time.Second)})
	began := time.Now()
	if _, err := st.Import(ctx, storetest.Bindings(bound), "test"); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bindings imported in %v", bound, time.Since(began).Round(time.Millisecond))
	want := map[string]expected{}
	for i := range bound {
		key := storetest.Key(i)
		want[key] = expected{http.StatusFound, target(key)}
	}
	for i := 3; i < bound; i += withdraw {
		key := storetest.Key(i)
		if _, err := st.Apply(ctx, store.Write{Binding: store.Binding{Key: key, Status: http.StatusGone, Reason: "withdrawn before the nodes started"}, By: "test"}); err != nil {
			t.Fatal(err)
		}
		want[key] = expected{status: http.StatusGone}
	}
	var minted []store.Binding
	for i := range reserved {
		minted = append(minted, store.Binding{Key: storetest.Key(bound + i)})
		want[storetest.Key(bound+i)] = expected{status: http.StatusNotFound}
	}
	if _, err := st.Reserve(ctx, minted, "test"); err != nil {
		t.Fatal(err)
	}
	st.Cleanup()

	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	nodes := make([]*copyNode, 2)
	for i := range nodes {
		body := copyNodeBody(tablePath, dsn, t.TempDir())
		nodes[i] = &copyNode{site: caddytest.StartNode(t, body, tablePath), body: body}
	}
	a, b := nodes[0].site, nodes[1].site

	// The identifier to withdraw, bound through a, and answered (so
	// cached) live by b; once both copies hold it, they hold everything
	// written before.
	const victim = "ark:12345/x5victim"
	if got := ask(a.Base, "PUT", "/api/ark/id/"+victim, `{"target": "https://repo.example.org/victim"}`); got.status != http.StatusCreated {
		t.Fatalf("bind %s: %d %v %s", victim, got.status, got.err, got.body)
	}
	began = time.Now()
	for _, n := range nodes {
		testkit.WaitFor(t, "the copy to be built and to hold "+victim, func() bool {
			rd := copyReady(t, n.site.Base)
			return rd.Copy != nil && rd.Copy.State == "serving" && rd.Copy.BehindChanges == 0 &&
				ask(n.site.Base, "GET", "/"+victim, "").status == http.StatusFound
		})
	}
	t.Logf("both copies built and current %v after the nodes started", time.Since(began).Round(time.Millisecond))
	ask(b.Base, "GET", "/"+victim, "")

	// The load: random identifiers of want, to either node; a node being
	// restarted is skipped.
	var (
		counts  [phases][kinds]atomic.Int64
		phase   atomic.Int32
		wrongMu sync.Mutex
		wrongs  []string
		keys    = make([]string, 0, len(want))
		watched [2]func() []seen
	)
	loadWant := maps.Clone(want)
	for key := range loadWant {
		keys = append(keys, key)
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	var load sync.WaitGroup
	for w := range 4 {
		load.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 39))
			for loadCtx.Err() == nil {
				key := keys[rng.IntN(len(keys))]
				n := nodes[rng.IntN(len(nodes))]
				if !n.mu.TryRLock() {
					continue
				}
				base := n.site.Base
				got := ask(base, "GET", "/"+key, "")
				n.mu.RUnlock()
				p := phase.Load()
				switch {
				case loadWant[key].matches(got):
					counts[p][right].Add(1)
				case got.err == nil && got.status == http.StatusServiceUnavailable:
					counts[p][unavailable].Add(1)
				default:
					counts[p][wrong].Add(1)
				}
				if !loadWant[key].matches(got) {
					wrongMu.Lock()
					wrongs = append(wrongs, fmt.Sprintf("%s%s: %d %q %v", base, key, got.status, got.location, got.err))
					wrongMu.Unlock()
				}
			}
		})
	}
	for i, n := range nodes {
		watched[i] = watch(loadCtx, victim, func() string { return n.site.Base }, &n.mu)
	}
	stopAll := func() {
		stopLoad()
		load.Wait()
	}
	time.Sleep(time.Second) // load before the failure; not an assertion

	// Withdrawn through a while b is stopped; the primary dies at once.
	if err := syscall.Kill(b.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(b.PID, syscall.SIGCONT) })
	got := ask(a.Base, "POST", "/api/ark/withdraw/"+victim, `{"reason": "withdrawn just before the kill"}`)
	withdrawnAt := time.Now()
	if got.status != http.StatusOK || got.err != nil {
		_ = syscall.Kill(b.PID, syscall.SIGCONT)
		stopAll()
		t.Fatalf("withdraw %s: %d %v", victim, got.status, got.err)
	}
	phase.Store(outage)
	r.KillPrimary(t)
	if err := syscall.Kill(b.PID, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	killedAt := time.Now()

	for _, n := range nodes {
		if rd := copyReady(t, n.site.Base); !rd.Ready || rd.Copy == nil || rd.Copy.State != "serving" {
			t.Errorf("%s: readiness during the outage: %+v %+v, want ready, the copy serving", n.site.Base, rd, rd.Copy)
		}
	}

	// Writes during the outage: refused, with Retry-After.
	var refused []string
	refuse := func(round int) {
		for i, n := range nodes {
			key := fmt.Sprintf("ark:12345/x5refused%d%d", i, round)
			got := ask(n.site.Base, "PUT", "/api/ark/id/"+key, `{"target": "https://repo.example.org/refused"}`)
			if got.err != nil || got.status != http.StatusServiceUnavailable || got.retryAfter == "" {
				t.Errorf("write to node %d during the outage: %d (Retry-After %q) %v, want 503 with Retry-After", i, got.status, got.retryAfter, got.err)
			}
			refused = append(refused, key)
		}
	}
	refuse(0)

	// b follows the withdrawal from the standby, then is killed and
	// started again while no server takes writes: its copy answers
	// every identifier.
	testkit.WaitFor(t, "b to answer "+victim+" as withdrawn", func() bool {
		return ask(b.Base, "GET", "/"+victim, "").status == http.StatusGone
	})
	t.Logf("b answers %s 410 %v after the kill", victim, time.Since(killedAt).Round(time.Millisecond))
	nodes[1].mu.Lock()
	if err := syscall.Kill(b.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	nodes[1].site = caddytest.StartNode(t, nodes[1].body, tablePath)
	b = nodes[1].site
	nodes[1].mu.Unlock()
	began = time.Now()
	want[victim] = expected{status: http.StatusGone}
	if n, samples := checkEvery(b.Base, want); n > 0 {
		t.Errorf("b restarted during the outage: %d of %d identifiers answered otherwise, such as %v", n, len(want), samples)
	}
	t.Logf("b, restarted during the outage, answered all %d identifiers in %v", len(want), time.Since(began).Round(time.Millisecond))
	refuse(1)

	r.Promote(t)
	promotedAt := time.Now()
	phase.Store(after)
	t.Logf("primary killed to standby promoted: %v", promotedAt.Sub(killedAt).Round(time.Millisecond))

	// Writes after the promotion: accepted on both nodes without a
	// reload; a write refused in the meantime may have been committed by
	// the new primary (refusedLate), and is checked against the store.
	var accepted []string
	refusedLate := map[string]bool{}
	for i, n := range nodes {
		for j := 0; ; j++ {
			key := fmt.Sprintf("ark:12345/x5promoted%d%d", i, j)
			got := ask(n.site.Base, "PUT", "/api/ark/id/"+key, `{"target": "`+target(key)+`"}`)
			if got.err == nil && got.status < 300 {
				accepted = append(accepted, key)
				t.Logf("node %d: first write accepted %v after pg_ctl promote returned (%d refused before)", i, time.Since(promotedAt).Round(time.Millisecond), j)
				break
			}
			if got.err != nil || got.status != http.StatusServiceUnavailable || got.retryAfter == "" {
				stopAll()
				t.Fatalf("write to node %d after the promotion: %d (Retry-After %q) %v", i, got.status, got.retryAfter, got.err)
			}
			refusedLate[key] = true
			if time.Since(promotedAt) > time.Minute {
				stopAll()
				t.Fatalf("node %d: no write accepted within a minute of the promotion", i)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	time.Sleep(500 * time.Millisecond) // load after the promotion
	stopAll()

	for p, name := range []string{"before", "outage", "after"} {
		t.Logf("%s: %d right, %d 503, %d wrong", name, counts[p][right].Load(), counts[p][unavailable].Load(), counts[p][wrong].Load())
	}
	if len(wrongs) > 0 {
		t.Errorf("%d answers under load were not the identifier's own, such as %v", len(wrongs), wrongs[:min(5, len(wrongs))])
	}
	if counts[outage][right].Load() == 0 {
		t.Error("no read answered during the outage")
	}

	// The withdrawn identifier: never live on a after its withdrawal,
	// nor on b once it answered otherwise, nor later than liveBound after
	// it went on.
	checkWithdrawn(t, victim, [2][]seen{watched[0](), watched[1]()}, withdrawnAt, killedAt)

	// Afterwards the store holds what was written, and both nodes answer
	// every binding as the store says.
	after := testkit.Provision(t, &postgres.Store{DSN: dsn, Schema: postgres.DefaultSchema, Timeout: caddy.Duration(5 * time.Second)})
	held := map[string]expected{}
	if err := after.Each(ctx, func(b *store.Binding) error {
		held[b.Key] = owed(b)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	after.Cleanup()
	for _, key := range accepted {
		want[key] = expected{http.StatusFound, target(key)}
	}
	for key := range refusedLate {
		if got, ok := held[key]; ok {
			t.Logf("%s refused after the promotion, yet committed: %+v", key, got)
			want[key] = got
		}
	}
	if len(held) != len(want) {
		t.Errorf("the store holds %d bindings, want %d", len(held), len(want))
	}
	for key, w := range want {
		if held[key] != w {
			t.Errorf("the store holds %s as %+v, want %+v", key, held[key], w)
		}
	}
	for _, key := range refused {
		if _, ok := held[key]; ok {
			t.Errorf("%s, refused during the outage, is in the store", key)
		}
	}
	for i, n := range nodes {
		testkit.WaitFor(t, "the copy to hold the writes after the promotion", func() bool {
			return ask(n.site.Base, "GET", "/"+accepted[len(accepted)-1], "").status == http.StatusFound
		})
		if wrong, samples := checkEvery(n.site.Base, held); wrong > 0 {
			t.Errorf("node %d afterwards: %d of %d bindings answered otherwise than the store holds them, such as %v", i, wrong, len(held), samples)
		}
	}
}
