package ark

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/store"
)

// benchStoreHandler provisions a handler over a bolt store holding a
// binding for each of keys, with the cache of cacheSize (-1: none).
func benchStoreHandler(b *testing.B, keys []string, cacheSize int, ms ...mint.Minter) *Handler {
	b.Helper()
	path := filepath.Join(b.TempDir(), "store.db")
	h := testkit.Provision(b, &Handler{NAANs: []string{"12345"}, Foreign: "404", CacheSize: cacheSize, Minters: ms,
		StoreRaw: []byte(`{"backend":"bolt","path":"` + path + `"}`)})
	i := 0
	_, err := h.Store().Import(context.Background(), func() (*store.Binding, error) {
		if i == len(keys) {
			return nil, io.EOF
		}
		i++
		return &store.Binding{Key: keys[i-1], Target: "https://example.org/" + keys[i-1], Status: 302, Passthrough: true}, nil
	}, "bench")
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// BenchmarkStoreResolve measures resolution of identifiers bound in a
// bolt store of 100k bindings (no table): a hot set of 1000 through the
// store cache, and with no cache (every request a bbolt read).
func BenchmarkStoreResolve(b *testing.B) {
	keys := syntheticKeys(100_000)
	for _, cache := range []struct {
		name string
		size int
	}{{"cached", 0}, {"uncached", -1}} {
		h := benchStoreHandler(b, keys, cache.size)
		rs := h.resolver.Load()
		for _, kind := range []string{"exact", "inherited"} {
			b.Run(cache.name+"/"+kind, func(b *testing.B) {
				in := make([]string, 1000)
				for i := range in {
					in[i] = keys[i*97%len(keys)]
					if kind == "inherited" {
						in[i] += "/c2/s4.pdf"
					}
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if res := rs.Resolve(context.Background(), in[i%len(in)]); res.Status != 302 {
						b.Fatalf("%s: %d %s", in[i%len(in)], res.Status, res.Reason)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkStoreBind measures Apply on the bolt store, one at a time (each
// one fsync'ed before it returns: the latency an API client sees), and
// from 16 goroutines at once (concurrent writes share a transaction).
func BenchmarkStoreBind(b *testing.B) {
	h := benchStoreHandler(b, nil, 0)
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		i := 0
		for b.Loop() {
			k := fmt.Sprintf("ark:12345/bind%d", i)
			if _, err := h.Store().Apply(ctx, store.Write{Binding: store.Binding{Key: k, Target: "https://example.org/x", Status: 302}, By: "bench"}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("parallel16", func(b *testing.B) {
		b.SetParallelism(16)
		var n atomic.Uint64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				k := fmt.Sprintf("ark:12345/par%d", n.Add(1))
				if _, err := h.Store().Apply(ctx, store.Write{Binding: store.Binding{Key: k, Target: "https://example.org/x", Status: 302}, By: "bench"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkMint measures Handler.Mint on the bolt store: one name a call
// and 1000 names a call, sequential (.zeeeeeek) and random (.reeddeedk).
func BenchmarkMint(b *testing.B) {
	h := benchStoreHandler(b, nil, 0,
		mint.Minter{Shoulder: "ark:12345/s", Template: ".zeeeeeek"}, mint.Minter{Shoulder: "ark:12345/x5", Template: ".reeddeedk"})
	ctx := context.Background()
	for _, shoulder := range []string{"ark:12345/s", "ark:12345/x5"} {
		for _, n := range []int{1, 1000} {
			b.Run(fmt.Sprintf("%s/%d", map[string]string{"ark:12345/s": "sequential", "ark:12345/x5": "random"}[shoulder], n), func(b *testing.B) {
				for b.Loop() {
					if keys, err := h.Mint(ctx, shoulder, n, "bench", nil); err != nil || len(keys) != n {
						b.Fatal(len(keys), err)
					}
				}
				b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "names/s")
			})
		}
	}
}
