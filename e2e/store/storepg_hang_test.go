package store

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// timed is one request's answer and how long it took, from the client.
type timed struct {
	at      time.Duration // when it was sent, since the phase began
	took    time.Duration
	status  int
	retry   string // Retry-After
	problem string // a transport error, or an unexpected answer
}

// latencies returns the p50, p90 and largest of took over answers.
func latencies(answers []timed) (p50, p90, most time.Duration) {
	if len(answers) == 0 {
		return 0, 0, 0
	}
	d := make([]time.Duration, len(answers))
	for i, a := range answers {
		d[i] = a.took
	}
	slices.Sort(d)
	return d[len(d)/2], d[len(d)*9/10], d[len(d)-1]
}

// hammer runs workers goroutines that each call ask in a loop until stop
// is closed, and returns every answer.
func hammer(workers int, stop <-chan struct{}, ask func(worker, i int) timed) []timed {
	var (
		mu  sync.Mutex
		all []timed
		wg  sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				a := ask(w, i)
				mu.Lock()
				all = append(all, a)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return all
}

// timedGet sends a GET with header key: value (none when key is "") and
// times it.
func timedGet(url string, start time.Time, key, value string) timed {
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set(key, value)
	}
	sent := time.Now()
	resp, err := caddytest.Client.Do(req)
	a := timed{at: sent.Sub(start), took: time.Since(sent)}
	if err != nil {
		a.problem = err.Error()
		return a
	}
	resp.Body.Close()
	a.status, a.retry = resp.StatusCode, resp.Header.Get("Retry-After")
	return a
}

// TestPostgresHangFailsFast freezes every process of PostgreSQL with
// SIGSTOP under a site (store timeout 1s): once the first operations have
// timed out, identifiers the cache does not hold, and the API, must get
// 503 with Retry-After at once rather than after the timeout, while cached
// identifiers keep answering; after SIGCONT an identifier never asked
// before must be answered from the store within a second. The readiness
// check says ready before, not ready during the freeze, ready after. It
// logs the client-side latencies for BENCHMARKS.md.
func TestPostgresHangFailsFast(t *testing.T) {
	c := testkit.StartPostgres(t)
	dsn := c.CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	ops := caddytest.NewOpsSite(t)
	body := strings.Replace(caddytest.PGSiteBody(dsn, tablePath), "store postgres "+dsn, "store postgres "+dsn+" {\n\t\t\ttimeout 1s\n\t\t}", 1)
	body = strings.Replace(body, "minter ark:12345/b3 .sdddd", "minter ark:12345/b3 .sdddd\n\t\tready /healthz/ark", 1)
	if err := ops.Load(body); err != nil {
		t.Fatal(err)
	}
	s := &caddytest.APISite{Site: ops.Site, Table: tablePath}
	const bound = 20
	for i := range bound {
		path := fmt.Sprintf("/id/ark:12345/b3h%d", i)
		if got := s.Call("PUT", path, "editor", `{"target": "https://repo.example.org/h"}`); got.Status != http.StatusCreated {
			t.Fatalf("bind: %d %s", got.Status, got.Body)
		}
	}
	// The change listener hears of the binds too, and empties the cache
	// of them: fill it once it has.
	time.Sleep(1500 * time.Millisecond)
	for range 2 {
		for i := range bound {
			if got := s.Get(fmt.Sprintf("/ark:12345/b3h%d", i)); got.Status != http.StatusFound {
				t.Fatalf("before the freeze: %d %s", got.Status, got.Body)
			}
		}
	}

	if got := s.Get("/healthz/ark"); got.Status != http.StatusOK || withoutReplication(got.Body) != `{"ready":true,"store":"ok","tables":"ok"}`+"\n" {
		t.Errorf("ready before the freeze: %d %s", got.Status, got.Body)
	}

	const refusedSeries = `caddy_ark_postgres_circuit_refused_total{schema="ark"}`
	refused := ops.Metrics()[refusedSeries] // the process's, since other tests' stores may share the schema's name

	c.Freeze(t)
	frozen := time.Now()
	var fresh atomic.Int64
	stop := make(chan struct{})
	var cached, api []timed
	var wg sync.WaitGroup
	wg.Go(func() {
		cached = hammer(1, stop, func(_, i int) timed {
			a := timedGet(fmt.Sprintf("%s/ark:12345/b3h%d", s.Base, i%bound), frozen, "", "")
			if a.problem == "" && a.status != http.StatusFound {
				a.problem = fmt.Sprintf("cached identifier answered %d", a.status)
			}
			return a
		})
	})
	wg.Go(func() {
		api = hammer(1, stop, func(_, i int) timed {
			a := timedGet(fmt.Sprintf("%s/api/ark/id/ark:12345/b3h%d", s.Base, i%bound), frozen, "Authorization", "Bearer editor-secret")
			if a.problem == "" && (a.status != http.StatusServiceUnavailable || a.retry == "") {
				a.problem = fmt.Sprintf("API answered %d Retry-After %q", a.status, a.retry)
			}
			return a
		})
	})
	var ready caddytest.Answer
	var readyTook time.Duration
	wg.Go(func() {
		time.Sleep(3 * time.Second)
		asked := time.Now()
		ready = s.Get("/healthz/ark")
		readyTook = time.Since(asked)
	})
	phaseOver := make(chan struct{})
	time.AfterFunc(4*time.Second, func() { close(phaseOver) })
	uncached := hammer(4, phaseOver, func(_, _ int) timed {
		a := timedGet(fmt.Sprintf("%s/ark:12345/n%d", s.Base, fresh.Add(1)), frozen, "", "")
		if a.problem == "" && (a.status != http.StatusServiceUnavailable || a.retry == "") {
			a.problem = fmt.Sprintf("uncached identifier answered %d Retry-After %q while the store hangs", a.status, a.retry)
		}
		return a
	})
	close(stop)
	wg.Wait()

	// The first operations wait for the store's timeout (1s); from 2s on
	// the circuit is open.
	var first, settled []timed
	for _, a := range uncached {
		if a.at < 2*time.Second {
			first = append(first, a)
		} else {
			settled = append(settled, a)
		}
	}
	report := func(name string, as []timed) (p50 time.Duration) {
		p50, p90, most := latencies(as)
		t.Logf("%s: %d requests, p50 %v, p90 %v, max %v", name, len(as), p50.Round(time.Microsecond), p90.Round(time.Microsecond), most.Round(time.Microsecond))
		for _, a := range as {
			if a.problem != "" {
				t.Errorf("%s: at %v: %s", name, a.at.Round(time.Millisecond), a.problem)
				break
			}
		}
		return p50
	}
	report("uncached, first 2s of the freeze", first)
	if p50 := report("uncached, 2s-4s into the freeze", settled); len(settled) == 0 || p50 > 200*time.Millisecond {
		t.Errorf("uncached identifiers 2s into the freeze: %d answers, p50 %v; want 503 at once (p50 under 200ms, the timeout is 1s)", len(settled), p50)
	}
	report("cached, during the freeze", cached)
	if p50 := report("API, during the freeze", api); len(api) == 0 || p50 > 200*time.Millisecond {
		t.Errorf("API during the freeze: %d answers, p50 %v; want 503 at once", len(api), p50)
	}

	// 3s into the freeze the circuit is open or half-open: the readiness
	// check says so, at once, or it probes and says the store did not
	// answer.
	if ready.Status != http.StatusServiceUnavailable ||
		!strings.Contains(ready.Body, `"store":"circuit_open"`) && !strings.Contains(ready.Body, `"store":"unavailable"`) {
		t.Errorf("ready during the freeze: %d %s", ready.Status, ready.Body)
	} else {
		t.Logf("ready during the freeze: %d %s in %v", ready.Status, strings.TrimSpace(ready.Body), readyTook.Round(time.Microsecond))
	}

	c.Thaw(t)
	thawed := time.Now()
	var served atomic.Int64 // nanoseconds after the thaw of the first answer from the store
	done := make(chan struct{})
	after := hammer(4, done, func(_, _ int) timed {
		a := timedGet(fmt.Sprintf("%s/ark:12345/n%d", s.Base, fresh.Add(1)), thawed, "", "")
		switch {
		case a.problem != "":
		case a.status == http.StatusNotFound:
			if served.CompareAndSwap(0, int64(a.at+a.took)) {
				time.AfterFunc(500*time.Millisecond, func() { close(done) })
			}
		case a.status != http.StatusServiceUnavailable:
			a.problem = fmt.Sprintf("uncached identifier answered %d after the thaw", a.status)
		}
		if a.at > 5*time.Second && served.CompareAndSwap(0, -1) {
			close(done)
		}
		return a
	})
	first404 := time.Duration(served.Load())
	t.Logf("after SIGCONT: first uncached identifier answered from the store %v after the thaw", first404.Round(time.Millisecond))
	if first404 <= 0 || first404 > time.Second {
		t.Errorf("after SIGCONT the first uncached answer from the store came %v after the thaw; want within 1s", first404)
	}
	var recovered []timed
	for _, a := range after {
		if a.at > first404 && a.problem == "" {
			recovered = append(recovered, a)
			if a.status != http.StatusNotFound {
				t.Errorf("after recovery: %d", a.status)
				break
			}
		}
	}
	report("uncached, after recovery", recovered)
	if got := s.Get("/healthz/ark"); got.Status != http.StatusOK {
		t.Errorf("ready after recovery: %d %s", got.Status, got.Body)
	}
	m := ops.Metrics()
	t.Logf("caddy_ark_postgres_circuit_refused_total +%v", m[refusedSeries]-refused)
	if state := m[`caddy_ark_postgres_circuit{schema="ark"}`]; state != 0 {
		t.Errorf("caddy_ark_postgres_circuit %v after recovery, want 0 (closed)", state)
	}
	if len(caddytest.LogEntries(t, ops.Log, "store postgres: circuit open: the server stopped answering; operations fail at once with 503 until a probe gets an answer")) != 1 {
		t.Errorf("the circuit's opening was not logged once")
	}
}
