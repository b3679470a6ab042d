package resolve_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/caddy-ark/caddy-ark/localcopy/copytest"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store/storetest"
)

// BenchmarkResolveCopyMiss resolves random identifiers of a store of
// ARK_BENCH_COPY_SIZE bindings (default 100,000) read through a local
// copy, with no cache: what a request costs the resolver when it misses
// every cache (issue 39).
func BenchmarkResolveCopyMiss(b *testing.B) {
	n := copytest.Size(b)
	rs := copytest.Resolver(b, n)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	runtime.GC() // not the setup's garbage
	b.ReportAllocs()
	for b.Loop() {
		k := storetest.Key(rng.IntN(n))
		if res := rs.Resolve(ctx, k); res.Outcome != resolve.OutcomeRedirect {
			b.Fatalf("%s: %+v", k, res)
		}
	}
}
