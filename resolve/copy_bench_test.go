package resolve_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/localcopy"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddy-ark/caddy-ark/table"
)

// BenchmarkResolveCopyMiss resolves random identifiers of a store of
// ARK_BENCH_COPY_SIZE bindings (default 100,000) read through a local
// copy, with no cache: what a request costs the resolver when it misses
// every cache (issue 39).
func BenchmarkResolveCopyMiss(b *testing.B) {
	n := 100_000
	if env := os.Getenv("ARK_BENCH_COPY_SIZE"); env != "" {
		var err error
		if n, err = strconv.Atoi(env); err != nil {
			b.Fatal(err)
		}
	}
	s := testkit.Provision(b, &bolt.Store{Path: filepath.Join(b.TempDir(), "ark.db"), SkipCheck: true})
	if _, err := s.Import(context.Background(), storetest.Bindings(n), "bench"); err != nil {
		b.Fatal(err)
	}
	c, err := localcopy.Open(b.TempDir(), s, localcopy.Options{Poll: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := c.CatchUp(context.Background()); err != nil {
		b.Fatal(err)
	}
	tbl, err := table.Load(nil, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	if err != nil {
		b.Fatal(err)
	}
	rs, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Store: localcopy.Wrap(s, c), MaxLength: 1024})
	if err != nil {
		b.Fatal(err)
	}
	defer rs.Close()
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
