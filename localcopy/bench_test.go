package localcopy_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/localcopy"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddyserver/caddy/v2"
)

// benchSize is ARK_BENCH_COPY_SIZE, the bindings of a benchmark's store
// (default 100,000).
func benchSize(b *testing.B) int {
	n := 100_000
	if env := os.Getenv("ARK_BENCH_COPY_SIZE"); env != "" {
		var err error
		if n, err = strconv.Atoi(env); err != nil {
			b.Fatal(err)
		}
	}
	return n
}

// benchStore opens the store ARK_BENCH_COPY_STORE names (bolt, the
// default, or postgres) with n bindings.
func benchStore(b *testing.B, n int) store.Store {
	var s store.Store
	if os.Getenv("ARK_BENCH_COPY_STORE") == "postgres" {
		s = testkit.Provision(b, &postgres.Store{DSN: testkit.SharedPostgres(b).CreateDB(b), Timeout: caddy.Duration(5 * time.Second)})
	} else {
		s = testkit.Provision(b, &bolt.Store{Path: filepath.Join(b.TempDir(), "ark.db"), SkipCheck: true})
	}
	if _, err := s.Import(context.Background(), storetest.Bindings(n), "bench"); err != nil {
		b.Fatal(err)
	}
	return s
}

// peakRSS returns the process's peak resident set (VmHWM), in bytes.
func peakRSS(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				b.Fatal(err)
			}
			return float64(kb << 10)
		}
	}
	b.Skip("no VmHWM")
	return 0
}

// BenchmarkCopyBuild builds a copy of a store of ARK_BENCH_COPY_SIZE
// bindings and reports the time, the process's peak RSS during the build
// (reset through /proc/self/clear_refs once the store is filled) and the
// bytes of the copy per binding.
func BenchmarkCopyBuild(b *testing.B) {
	n := benchSize(b)
	s := benchStore(b, n)
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			b.Skip("cannot reset the peak RSS:", err)
		}
		b.StartTimer()
		c, err := localcopy.Open(dir, s, localcopy.Options{Poll: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		err = c.CatchUp(ctx)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		b.ReportMetric(peakRSS(b)/(1<<20), "peak-RSS-MiB")
		if fi, err := os.Stat(filepath.Join(dir, "bindings.base")); err == nil {
			b.ReportMetric(float64(fi.Size())/float64(n), "bytes/binding")
		}
		_ = c.Close()
		b.StartTimer()
	}
}

// BenchmarkLookupMiss looks up random keys of a store of
// ARK_BENCH_COPY_SIZE bindings, with the ancestor the resolver asks too,
// from the copy and from the store itself: what a cache miss costs.
func BenchmarkLookupMiss(b *testing.B) {
	n := benchSize(b)
	s := benchStore(b, n)
	c, err := localcopy.Open(b.TempDir(), s, localcopy.Options{Poll: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.CatchUp(ctx); err != nil {
		b.Fatal(err)
	}
	for _, from := range []struct {
		name   string
		lookup func([]string) ([]*store.Binding, error)
	}{
		{"copy", c.Lookup},
		{"store", func(keys []string) ([]*store.Binding, error) { return s.Lookup(ctx, keys) }},
	} {
		b.Run(from.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				k := storetest.Key(rng.IntN(n))
				got, err := from.lookup([]string{k + "/c1", k})
				if err != nil || got[1] == nil {
					b.Fatalf("%s: %v %v", k, got, err)
				}
			}
		})
	}
}

// BenchmarkCopyLag writes ARK_BENCH_LAG_RATE bindings a second (default
// 100) for ARK_BENCH_LAG_SECONDS (default 10) through one store handle,
// as a node does, while a copy follows the store through another, as
// another node's does, and reports how long after each write returned
// the copy had applied it: p50 and p99. On PostgreSQL (ARK_BENCH_COPY_STORE
// =postgres) the copy's reader is woken by the NOTIFY of the write.
func BenchmarkCopyLag(b *testing.B) {
	rate, seconds := 100, 10
	if env := os.Getenv("ARK_BENCH_LAG_RATE"); env != "" {
		rate, _ = strconv.Atoi(env)
	}
	if env := os.Getenv("ARK_BENCH_LAG_SECONDS"); env != "" {
		seconds, _ = strconv.Atoi(env)
	}
	writer := benchStore(b, 0)
	follower := writer
	if p, ok := writer.(*postgres.Store); ok {
		follower = testkit.Provision(b, &postgres.Store{DSN: p.DSN, Timeout: p.Timeout})
	}
	c, err := localcopy.Open(b.TempDir(), follower, localcopy.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := c.CatchUp(ctx); err != nil {
		b.Fatal(err)
	}
	type write struct{ returned, applied time.Time }
	var mu sync.Mutex
	writes := map[string]*write{}
	c.Watch(ctx, func(keys []string) {
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		for _, k := range keys {
			if w, ok := writes[k]; ok && w.applied.IsZero() {
				w.applied = now
			}
		}
	})
	var wg sync.WaitGroup
	for b.Loop() {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		for i := range rate * seconds {
			<-tick.C
			k := storetest.Key(i)
			mu.Lock()
			writes[k] = &write{}
			mu.Unlock()
			wg.Go(func() {
				bnd := store.Binding{Key: k, Target: "https://lag.example.org/" + strconv.Itoa(i), Status: 302}
				if _, err := writer.Apply(ctx, store.Write{Binding: bnd, By: "bench"}); err != nil {
					b.Error(err)
				}
				mu.Lock()
				writes[k].returned = time.Now()
				mu.Unlock()
			})
		}
		tick.Stop()
		wg.Wait()
	}
	time.Sleep(2 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	var lags []time.Duration
	unseen := 0
	for _, w := range writes {
		if w.applied.IsZero() {
			unseen++
			continue
		}
		lags = append(lags, max(0, w.applied.Sub(w.returned)))
	}
	if len(lags) == 0 {
		b.Fatal("no write reached the copy")
	}
	slices.Sort(lags)
	b.ReportMetric(float64(lags[len(lags)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lags[len(lags)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(unseen), "unseen")
}
