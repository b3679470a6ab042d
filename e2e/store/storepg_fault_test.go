package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddyserver/caddy/v2"
)

// TestPostgresRestartUnderLoad stops and restarts PostgreSQL while 8
// clients keep asking a node for identifiers: bound ones (302), unbound
// ones that were asked before and unbound ones never asked before (404),
// with a cache too small to hold them all. Every answer must be the right
// one or a 503 with Retry-After; the node must answer uncached
// identifiers again by itself once the server is back. It logs the
// counts and the time to recover (BENCHMARKS.md).
func TestPostgresRestartUnderLoad(t *testing.T) {
	c := testkit.StartPostgres(t)
	dsn := c.CreateDB(t)
	s := caddytest.StartSite(t, fmt.Sprintf(`
	ark {
		naan 12345
		foreign 404
		cache_size 100
		store postgres {
			dsn %s
			timeout 500ms
		}
	}`, dsn))
	st := testkit.Provision(t, &postgres.Store{DSN: dsn, Timeout: caddy.Duration(500 * time.Millisecond)})
	const bound = 300
	if _, err := st.Import(context.Background(), storetest.Bindings(bound), "test"); err != nil {
		t.Fatal(err)
	}

	const (
		right = iota
		unavailable
		wrong
		numKinds
	)
	var (
		counts    [3][numKinds]atomic.Int64 // by phase: before, down, after
		phase     atomic.Int32
		fresh     atomic.Int64
		wrongsMu  sync.Mutex
		wrongs    []string
		recovered atomic.Int64 // Unix nanoseconds of the first uncached answer after the restart
	)
	ask := func(rng *rand.Rand) {
		var path, want string
		uncached := false
		switch i := rng.IntN(3 * bound); {
		case i < bound:
			path, want = "/"+storetest.Key(i), "https://repo.example.org/"+storetest.Key(i)[len("ark:12345/"):]
		case i < 2*bound:
			path = fmt.Sprintf("/ark:12345/b2%d", i)
		default:
			path, uncached = fmt.Sprintf("/ark:12345/n%d", fresh.Add(1)), true
		}
		req, _ := http.NewRequest("GET", s.Base+path, nil)
		resp, err := caddytest.Client.Do(req)
		p := phase.Load()
		kind := wrong
		detail := ""
		if err != nil {
			detail = err.Error()
		} else {
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
				kind = unavailable
			case want != "" && resp.StatusCode == http.StatusFound && resp.Header.Get("Location") == want,
				want == "" && resp.StatusCode == http.StatusNotFound:
				kind = right
				if uncached && p == 2 {
					recovered.CompareAndSwap(0, time.Now().UnixNano())
				}
			default:
				detail = fmt.Sprintf("%d %q", resp.StatusCode, resp.Header.Get("Location"))
			}
		}
		counts[p][kind].Add(1)
		if kind == wrong {
			wrongsMu.Lock()
			wrongs = append(wrongs, path+": "+detail)
			wrongsMu.Unlock()
		}
	}

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			for ctx.Err() == nil {
				ask(rng)
			}
		})
	}
	time.Sleep(time.Second) // load before the outage; not an assertion
	phase.Store(1)
	downAt := time.Now()
	if err := c.Stop(); err != nil {
		stop()
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // the outage
	if err := c.Start(); err != nil {
		stop()
		t.Fatal(err)
	}
	upAt := time.Now()
	phase.Store(2)
	deadline := upAt.Add(30 * time.Second)
	for recovered.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // some load after recovery
	stop()
	wg.Wait()

	for p, name := range []string{"before", "down", "after"} {
		t.Logf("%s: %d right, %d 503, %d wrong", name, counts[p][right].Load(), counts[p][unavailable].Load(), counts[p][wrong].Load())
	}
	t.Logf("server down for %v (pg_ctl stop to pg_ctl start returning)", upAt.Sub(downAt).Round(time.Millisecond))
	if r := recovered.Load(); r == 0 {
		t.Errorf("no uncached identifier answered within 30s of the restart")
	} else {
		t.Logf("first uncached answer %v after pg_ctl start returned", time.Unix(0, r).Sub(upAt).Round(time.Millisecond))
	}
	if n := counts[1][unavailable].Load() + counts[2][unavailable].Load(); n == 0 {
		t.Errorf("no 503 while the server was down: the outage was not seen")
	}
	if len(wrongs) > 0 {
		t.Errorf("%d wrong answers, such as %v", len(wrongs), wrongs[:min(5, len(wrongs))])
	}
}
