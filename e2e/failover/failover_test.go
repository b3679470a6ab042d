package failover

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// nodeBody is the site block of a node on the PostgreSQL store whose
// dsn (and read_dsn, unless "") are given, with a cache too small for
// the bound identifiers.
func nodeBody(tablePath, dsn, readDSN string) string {
	st := fmt.Sprintf("store postgres {\n\t\t\tdsn %q\n\t\t\ttimeout 1s\n", dsn)
	if readDSN != "" {
		st += fmt.Sprintf("\t\t\tread_dsn %q\n", readDSN)
	}
	st += "\t\t}\n\t\tcache_size 256\n\t\tready /healthz/ark"
	return strings.Replace(caddytest.APISiteBody("BOLT", tablePath, ""), "store bolt BOLT", st, 1)
}

// answer is one answer of a node, or the error of asking it.
type answer struct {
	status     int
	location   string
	retryAfter string
	body       string
	err        error
}

// ask sends method path (an identifier's, or the API's under /api/ark
// with the editor's key) to base, from any goroutine.
func ask(base, method, path, body string) answer {
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	if strings.HasPrefix(path, "/api/") {
		req.Header.Set("Authorization", "Bearer editor-secret")
	}
	resp, err := caddytest.Client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return answer{status: resp.StatusCode, location: resp.Header.Get("Location"), retryAfter: resp.Header.Get("Retry-After"), body: string(data), err: err}
}

// readiness is the answer of a node's readiness check.
type readiness struct {
	Ready       bool
	Replication *store.Replication
}

// ready asks node's readiness check.
func ready(t *testing.T, node string) readiness {
	t.Helper()
	got := ask(node, "GET", "/healthz/ark", "")
	var rd readiness
	if err := json.Unmarshal([]byte(got.body), &rd); err != nil || got.err != nil {
		t.Fatalf("readiness: %d %q: %v %v", got.status, got.body, err, got.err)
	}
	return rd
}

// target is where the bound identifier key redirects.
func target(key string) string { return "https://repo.example.org/" + key[len("ark:12345/"):] }

// The phases of a failover test.
const (
	before = iota // both servers up
	outage        // the primary killed, the standby not promoted yet
	after         // the standby promoted
	phases
)

// seen is one answer of a node for the identifier withdrawn: its status,
// when it was asked and when it was answered.
type seen struct {
	status   int
	sent, at time.Time
}

// watch asks base for key every 5 ms (while mu, if not nil, is free for
// reading) until ctx is done, and returns its answers once it is.
func watch(ctx context.Context, key string, base func() string, mu *sync.RWMutex) func() []seen {
	var answers []seen
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if mu == nil || mu.TryRLock() {
				sent := time.Now()
				got := ask(base(), "GET", "/"+key, "")
				if mu != nil {
					mu.RUnlock()
				}
				answers = append(answers, seen{got.status, sent, time.Now()})
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return func() []seen {
		<-done
		return answers
	}
}

// liveBound is how long after it went on (SIGCONT) a node that was
// stopped over a withdrawal and the primary's death may still answer the
// identifier live: until it notices that it lost the primary and reads
// the standby, some tens of milliseconds; the bound leaves room for a
// loaded machine.
const liveBound = time.Second

// checkWithdrawn checks what node 0 (answers[0]), through which key was
// withdrawn at withdrawnAt, and node 1, stopped from before the
// withdrawal until wentOn, answered for it when asked after the
// withdrawal was acknowledged (a request sent before may be answered
// either way): node 0 never live; node 1 never live once it answered
// otherwise, nor later than liveBound after it went on; both otherwise
// in the end. It logs when node 1 last answered live.
func checkWithdrawn(t *testing.T, key string, answers [2][]seen, withdrawnAt, wentOn time.Time) {
	t.Helper()
	for i, seen := range answers {
		var lastLive, firstNot time.Time
		for _, s := range seen {
			switch {
			case s.sent.Before(withdrawnAt):
			case s.status != http.StatusFound:
				if firstNot.IsZero() {
					firstNot = s.at
				}
			case i == 0:
				t.Errorf("node 0 answered %s live %v after its withdrawal was acknowledged", key, s.at.Sub(withdrawnAt).Round(time.Millisecond))
			case !firstNot.IsZero():
				t.Errorf("node %d answered %s live %v after it went on, after answering otherwise", i, key, s.at.Sub(wentOn).Round(time.Millisecond))
			default:
				lastLive = s.at
			}
		}
		if firstNot.IsZero() {
			t.Errorf("node %d never answered %s otherwise than live after its withdrawal (%d answers)", i, key, len(seen))
		}
		switch {
		case i == 0:
		case lastLive.IsZero():
			t.Logf("node %d: %s never answered live when asked after its withdrawal (%d answers)", i, key, len(seen))
		case lastLive.Sub(wentOn) > liveBound:
			t.Errorf("node %d answered %s live %v after it went on (SIGCONT), more than %v", i, key, lastLive.Sub(wentOn).Round(time.Millisecond), liveBound)
		default:
			t.Logf("node %d: %s, asked after its withdrawal, last answered live %v after the node went on (SIGCONT, right after the kill)", i, key, lastLive.Sub(wentOn).Round(time.Millisecond))
		}
	}
}

// The kinds of answers to a bound identifier.
const (
	right       = iota // its redirect
	unavailable        // 503 with Retry-After
	wrong              // anything else
	kinds
)

// TestFailover kills the primary with SIGKILL while two nodes, whose
// dsn names both servers, resolve bound identifiers under a bounded load
// (4 clients), then promotes the standby. Reads from the primary (no
// read_dsn) get 503 during the outage but never a wrong answer; reads
// from the standby (read_dsn, prefer-standby) answer every identifier
// throughout. In both, writes during the outage are refused with 503
// and Retry-After and nothing of them is kept; after `pg_ctl promote`
// writes are accepted on both nodes without a reload (the time to the
// first accepted write is logged); an identifier withdrawn through the
// first node just before the primary died, which the second node had
// cached as a redirect, is never answered as live by the first once the
// withdrawal is acknowledged, nor by the second once it has answered
// otherwise, and is 410 on both at the end; every binding is what was
// written. The second node is stopped (SIGSTOP) from before the
// withdrawal until the primary is dead, so that it has not heard of the
// withdrawal: it answers the identifier from its cache at most liveBound
// after it goes on (SIGCONT), until it notices that it lost the primary
// and reads the standby (how long is logged).
func TestFailover(t *testing.T) {
	for _, c := range []struct {
		name       string
		readDSN    string // target_session_attrs of the read_dsn, "" for none
		readsOnAir bool   // whether every read is answered during the outage
	}{
		{"reads from the primary", "", false},
		{"reads from the standby", "prefer-standby", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := testkit.StartReplicated(t)
			db := r.CreateDB(t)
			dsn := r.DSN(db, "read-write")
			readDSN := ""
			if c.readDSN != "" {
				readDSN = r.DSN(db, c.readDSN)
			}
			failover(t, r, dsn, readDSN, c.readsOnAir)
		})
	}
}

func failover(t *testing.T, r *testkit.Replicated, dsn, readDSN string, readsOnAir bool) {
	const bound = 2000
	st := testkit.Provision(t, &postgres.Store{DSN: dsn, Schema: postgres.DefaultSchema, Timeout: caddy.Duration(time.Second)})
	if _, err := st.Import(context.Background(), storetest.Bindings(bound), "test"); err != nil {
		t.Fatal(err)
	}
	st.Cleanup() // its metrics would be the in-process node's
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	a := caddytest.StartOpsSite(t, nodeBody(tablePath, dsn, readDSN))
	b := caddytest.StartNode(t, nodeBody(tablePath, dsn, readDSN), tablePath)
	nodes := []string{a.Base, b.Base}

	// The identifier to withdraw, bound, and cached as a redirect on b.
	const withdrawn = "ark:12345/x5withdrawn"
	if got := ask(a.Base, "PUT", "/api/ark/id/"+withdrawn, `{"target": "https://repo.example.org/w"}`); got.status >= 300 || got.err != nil {
		t.Fatalf("bind %s: %d %v", withdrawn, got.status, got.err)
	}
	for range 2 {
		if got := ask(b.Base, "GET", "/"+withdrawn, ""); got.status != http.StatusFound {
			t.Fatalf("%s on b before the withdrawal: %d %v", withdrawn, got.status, got.err)
		}
	}

	// What each node answers for the identifier to withdraw, asked
	// often enough that it stays in the caches under the load.
	ctx, stop := context.WithCancel(context.Background())
	var watched [2]func() []seen
	for i, node := range nodes {
		watched[i] = watch(ctx, withdrawn, func() string { return node }, nil)
	}

	var (
		counts  [phases][kinds]atomic.Int64
		phase   atomic.Int32
		wrongMu sync.Mutex
		wrongs  []string
	)
	var load sync.WaitGroup
	for w := range 4 {
		load.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 39))
			for ctx.Err() == nil {
				key := storetest.Key(rng.IntN(bound))
				node := nodes[rng.IntN(len(nodes))]
				got := ask(node, "GET", "/"+key, "")
				p := phase.Load()
				switch {
				case got.err == nil && got.status == http.StatusFound && got.location == target(key):
					counts[p][right].Add(1)
				case got.err == nil && got.status == http.StatusServiceUnavailable && got.retryAfter != "":
					counts[p][unavailable].Add(1)
				default:
					counts[p][wrong].Add(1)
					wrongMu.Lock()
					wrongs = append(wrongs, fmt.Sprintf("%s%s: %d %q %v", node, key, got.status, got.location, got.err))
					wrongMu.Unlock()
				}
			}
		})
	}
	time.Sleep(time.Second) // load before the failure; not an assertion

	// Withdrawn on a, then the primary dies at once, while b is stopped:
	// b has not heard of the withdrawal, and still holds the redirect in
	// its cache, when it goes on.
	if err := syscall.Kill(b.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(b.PID, syscall.SIGCONT) })
	if got := ask(a.Base, "POST", "/api/ark/withdraw/"+withdrawn, `{"reason": "a duplicate"}`); got.status >= 300 || got.err != nil {
		stop()
		load.Wait()
		t.Fatalf("withdraw %s: %d %v", withdrawn, got.status, got.err)
	}
	withdrawnAt := time.Now()
	phase.Store(outage)
	r.KillPrimary(t)
	if err := syscall.Kill(b.PID, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	killedAt := time.Now()

	// Readiness: ready when reads are answered, saying that writes are
	// not and which server the node follows.
	for _, node := range nodes {
		var rd readiness
		testkit.WaitFor(t, "the readiness check to say that writes are down", func() bool {
			rd = ready(t, node)
			return rd.Replication != nil && !rd.Replication.Writes
		})
		if rd.Ready != readsOnAir || rd.Replication.Reads != readsOnAir || readsOnAir && rd.Replication.Server != "standby" {
			t.Errorf("%s: readiness during the outage: %+v %+v", node, rd, *rd.Replication)
		}
	}

	// The metrics of the node in this process say the same, once it
	// follows the history on the standby, all of it.
	var m map[string]float64
	testkit.WaitFor(t, "the node to follow the standby", func() bool {
		m = a.Metrics()
		return m[`caddy_ark_postgres_standby{schema="ark"}`] == 1 && m[`caddy_ark_postgres_history_seq{schema="ark"}`] >= bound+2
	})
	t.Logf("the in-process node follows the standby %v after the kill", time.Since(killedAt).Round(time.Millisecond))
	if got, ok := m[`caddy_ark_postgres_up{schema="ark"}`]; !ok || got != 0 {
		t.Errorf("caddy_ark_postgres_up %v (present %v) during the outage, want 0", got, ok)
	}
	if got, ok := m[`caddy_ark_postgres_reads_up{schema="ark"}`]; readsOnAir && (!ok || got != 1) {
		t.Errorf("caddy_ark_postgres_reads_up %v (present %v) during the outage, want 1", got, ok)
	}

	// Writes during the outage: refused, with Retry-After.
	var refused []string
	for i := range 5 {
		for n, node := range nodes {
			key := fmt.Sprintf("ark:12345/x5refused%d%d", n, i)
			got := ask(node, "PUT", "/api/ark/id/"+key, `{"target": "https://repo.example.org/refused"}`)
			if got.err != nil || got.status != http.StatusServiceUnavailable || got.retryAfter == "" {
				t.Errorf("write to %s during the outage: %d (Retry-After %q) %v, want 503 with Retry-After", node, got.status, got.retryAfter, got.err)
			}
			refused = append(refused, key)
		}
		time.Sleep(200 * time.Millisecond)
	}

	r.Promote(t)
	promotedAt := time.Now()
	phase.Store(after)
	t.Logf("primary killed to standby promoted: %v", promotedAt.Sub(killedAt).Round(time.Millisecond))

	// Writes after the promotion: accepted on both nodes, without a
	// reload; until then refused, and nothing of a refusal kept.
	var accepted []string
	refusedLate := map[string]string{} // key: when and why
	for n, node := range nodes {
		for i := 0; ; i++ {
			key := fmt.Sprintf("ark:12345/x5promoted%d%d", n, i)
			got := ask(node, "PUT", "/api/ark/id/"+key, `{"target": "`+target(key)+`"}`)
			if got.err == nil && got.status < 300 {
				accepted = append(accepted, key)
				t.Logf("node %d: first write accepted %v after pg_ctl promote returned (%d refused before)", n, time.Since(promotedAt).Round(time.Millisecond), i)
				break
			}
			if got.err != nil || got.status != http.StatusServiceUnavailable || got.retryAfter == "" {
				t.Fatalf("write to %s after the promotion: %d (Retry-After %q) %v", node, got.status, got.retryAfter, got.err)
			}
			refusedLate[key] = fmt.Sprintf("node %d, %v after the promotion: %s", n, time.Since(promotedAt).Round(time.Millisecond), strings.Join(strings.Fields(got.body), " "))
			if time.Since(promotedAt) > time.Minute {
				t.Fatalf("node %d: no write accepted within a minute of the promotion", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, node := range nodes {
		testkit.WaitFor(t, "the readiness check to say writes are answered again", func() bool {
			rd := ready(t, node)
			return rd.Ready && rd.Replication != nil && rd.Replication.Writes && rd.Replication.Reads
		})
	}
	testkit.WaitFor(t, "caddy_ark_postgres_standby to say the node follows the primary", func() bool {
		return a.Metrics()[`caddy_ark_postgres_standby{schema="ark"}`] == 0
	})
	time.Sleep(500 * time.Millisecond) // load after the promotion
	stop()
	load.Wait()
	answers := [2][]seen{watched[0](), watched[1]()}

	for p, name := range []string{"before", "outage", "after"} {
		t.Logf("%s: %d right, %d 503, %d wrong", name, counts[p][right].Load(), counts[p][unavailable].Load(), counts[p][wrong].Load())
	}
	if len(wrongs) > 0 {
		t.Errorf("%d wrong answers, such as %v", len(wrongs), wrongs[:min(5, len(wrongs))])
	}
	if n := counts[outage][unavailable].Load() + counts[after][unavailable].Load(); readsOnAir && n > 0 {
		t.Errorf("%d reads answered 503 though they go to the standby", n)
	}
	if counts[outage][right].Load() == 0 && readsOnAir {
		t.Error("no read answered during the outage")
	}

	// The withdrawn identifier: never live on a after its withdrawal,
	// nor on b once it answered otherwise, nor later than liveBound after
	// it went on.
	checkWithdrawn(t, withdrawn, answers, withdrawnAt, killedAt)

	// Afterwards every binding is what was written, on both nodes.
	for _, node := range nodes {
		if got := ask(node, "GET", "/"+withdrawn, ""); got.status != http.StatusGone {
			t.Errorf("%s on %s: %d, want 410", withdrawn, node, got.status)
		}
		for i := range bound {
			key := storetest.Key(i)
			if got := ask(node, "GET", "/"+key, ""); got.status != http.StatusFound || got.location != target(key) {
				t.Fatalf("%s on %s afterwards: %d %q %v", key, node, got.status, got.location, got.err)
			}
		}
		for _, key := range accepted {
			if got := ask(node, "GET", "/"+key, ""); got.status != http.StatusFound || got.location != target(key) {
				t.Errorf("%s, written after the promotion, on %s: %d %q %v", key, node, got.status, got.location, got.err)
			}
		}
		for _, key := range refused {
			if got := ask(node, "GET", "/api/ark/id/"+key, ""); got.status != http.StatusNotFound {
				t.Errorf("%s, refused while no server took writes, on %s: %d, want 404 (nothing kept)", key, node, got.status)
			}
		}
		// A write refused once a primary took writes again may have
		// been committed by it: one that ran out of time while its
		// commit was under way. Kept, it is what was written.
		for key, why := range refusedLate {
			got := ask(node, "GET", "/"+key, "")
			switch {
			case got.status == http.StatusFound && got.location == target(key):
				t.Logf("%s refused (%s), yet committed", key, why)
			case got.status != http.StatusNotFound:
				t.Errorf("%s refused (%s), on %s: %d %q", key, why, node, got.status, got.location)
			}
		}
	}
}
