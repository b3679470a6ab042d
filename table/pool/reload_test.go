package pool_test

import (
	"fmt"
	"net/http"
	"runtime"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddy-ark/caddy-ark/table/pool"
	"github.com/caddyserver/caddy/v2"

	_ "github.com/caddy-ark/caddy-ark" // registers the ark module, whose handlers use the pool
)

// Many config reloads of a watching, caching handler: the table is read
// once and shared, and nothing piles up: goroutines (watchers, caches),
// pooled tables.
func TestManyReloadsShareTheTableAndLeakNothing(t *testing.T) {
	path := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/x5wf6789", Target: "https://repo.example.org/x"}})
	body := func(i int) string {
		// Each config differs a little, as real edits do, but not in its table.
		return fmt.Sprintf("ark {\n\ttable %s\n\twatch 100ms\n\tmax_length %d\n}", path, 1000+i)
	}
	s := caddytest.StartSite(t, body(0))
	noKeepAlive := &http.Client{Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	check := func(when string) {
		resp, err := noKeepAlive.Get(s.Base + "/ark:12345/x5wf6789")
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound {
			t.Fatalf("%s: %d", when, resp.StatusCode)
		}
	}
	check("first config")
	loads := testkit.CounterValue(t, metrics.Counters.LoadsOK[metrics.TriggerConfig])
	first := pool.Pooled()
	if len(first) != 1 {
		t.Fatalf("%d tables in the pool, want 1", len(first))
	}
	runtime.GC()
	baseline := runtime.NumGoroutine()

	const reloads = 40
	for i := 1; i <= reloads; i++ {
		if err := s.Load(body(i)); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("reload %d", i))
	}
	if got := testkit.CounterValue(t, metrics.Counters.LoadsOK[metrics.TriggerConfig]) - loads; got != 0 {
		t.Errorf("caddy_ark_table_loads_total counted %v reads of the unchanged table in %d reloads", got, reloads)
	}
	if now := pool.Pooled(); len(now) != 1 || now[0] != first[0] {
		t.Errorf("after %d reloads the pool holds %d tables, the first one: %v; want just the first", reloads, len(now), len(now) > 0 && now[0] == first[0])
	}
	testkit.WaitFor(t, fmt.Sprintf("goroutines back to %d (+2)", baseline), func() bool {
		runtime.GC()
		return runtime.NumGoroutine() <= baseline+2
	})

	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := len(pool.Pooled()); n != 0 {
		t.Errorf("%d tables in the pool after stopping", n)
	}
}
