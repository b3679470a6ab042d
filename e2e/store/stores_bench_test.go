package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddyserver/caddy/v2"
)

// The store benchmarks run the same operations on each backend: the
// embedded bbolt file (in a temp dir) and PostgreSQL (a throwaway
// cluster on loopback, started by the benchmark). Results are in
// BENCHMARKS.md.
//
//	go test -run '^$' -bench 'BenchmarkStores(Lookup|Bind|Mint)' -benchtime 2000x .
//	go test -run '^$' -bench 'BenchmarkStoresImport' -benchtime 1x .
//	ARK_BENCH_IMPORT_ROWS=10000000 go test -run '^$' -bench 'BenchmarkStoresImport/postgres' -benchtime 1x -timeout 1h .
//	ARK_BENCH_IMPORT_ROWS=1000000 ARK_BENCH_IMPORT_ORDER=random go test -run '^$' -bench 'BenchmarkStoresImport/bolt' -benchtime 1x .

// benchStores calls fn once per backend, with a function that opens a
// new, empty store of that backend.
func benchStores(b *testing.B, fn func(b *testing.B, open func() store.Store)) {
	b.Run("bolt", func(b *testing.B) {
		fn(b, func() store.Store {
			s := &bolt.Store{Path: filepath.Join(b.TempDir(), "store.db")}
			if err := s.Provision(caddy.Context{}); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Cleanup() })
			return s
		})
	})
	b.Run("postgres", func(b *testing.B) {
		c := testkit.SharedPostgres(b)
		fn(b, func() store.Store { return testkit.Provision(b, &postgres.Store{DSN: c.CreateDB(b)}) })
	})
}

// BenchmarkStoresImport imports ARK_BENCH_IMPORT_ROWS bindings (default
// 100000) into an empty store per iteration, in key order, or in a random
// order with ARK_BENCH_IMPORT_ORDER=random.
func BenchmarkStoresImport(b *testing.B) {
	rows := 100000
	if v := os.Getenv("ARK_BENCH_IMPORT_ROWS"); v != "" {
		var err error
		if rows, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	benchStores(b, func(b *testing.B, open func() store.Store) {
		var total time.Duration
		for b.Loop() {
			b.StopTimer()
			s := open()
			b.StartTimer()
			start := time.Now()
			next := storetest.Bindings(rows)
			if os.Getenv("ARK_BENCH_IMPORT_ORDER") == "random" {
				next = storetest.Shuffled(rows, 1)
			}
			n, err := s.Import(context.Background(), next, "bench")
			total += time.Since(start)
			if err != nil || n != rows {
				b.Fatalf("import: %d, %v", n, err)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/total.Seconds(), "rows/s")
	})
}

// BenchmarkStoresLookup measures uncached resolutions as the resolver
// asks for them: an identifier and its two ancestors in one Lookup, in a
// store of 100000 bindings, one at a time; it reports p50 and p99.
func BenchmarkStoresLookup(b *testing.B) {
	const size = 100000
	benchStores(b, func(b *testing.B, open func() store.Store) {
		s := open()
		ctx := context.Background()
		if _, err := s.Import(ctx, storetest.Bindings(size), "bench"); err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		var lat []time.Duration
		for b.Loop() {
			k := storetest.Key(rng.IntN(size))
			start := time.Now()
			got, err := s.Lookup(ctx, []string{k + "/c1/s2", k + "/c1", k})
			lat = append(lat, time.Since(start))
			if err != nil || got[2] == nil {
				b.Fatalf("lookup %s: %v, %v", k, got, err)
			}
		}
		reportLatency(b, lat)
	})
}

// reportLatency reports the median and 99th percentile of lat.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkStoresBind measures create-or-update writes, 8 writers at once
// per CPU, each a durable transaction with its history record.
func BenchmarkStoresBind(b *testing.B) {
	benchStores(b, func(b *testing.B, open func() store.Store) {
		s := open()
		var next atomic.Int64
		b.SetParallelism(8)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				k := storetest.Key(int(next.Add(1)) % 10000)
				if _, err := s.Apply(context.Background(), store.Write{Binding: store.Binding{Key: k, Target: "https://repo.example.org/b", Status: 302}, By: "bench"}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkStoresMint measures what a sequential minter asks of a store
// per name, 8 minters at once per CPU: the next number of the counter,
// then the name reserved.
func BenchmarkStoresMint(b *testing.B) {
	benchStores(b, func(b *testing.B, open func() store.Store) {
		s := open()
		b.SetParallelism(8)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			for pb.Next() {
				n, err := s.Count(ctx, "x5", 1)
				if err == nil {
					var ok []bool
					ok, err = s.Reserve(ctx, []store.Binding{{Key: storetest.Key(int(n))}}, "bench")
					if err == nil && !ok[0] {
						err = fmt.Errorf("name %d minted twice", n)
					}
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
