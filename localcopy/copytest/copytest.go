// Package copytest gives benchmarks of the answer path a resolver over a
// store read through a real local copy: a bbolt file of bindings in a
// temporary directory and a copy of it that has caught up. It is
// imported only by tests.
package copytest

import (
	"context"
	"os"
	"path/filepath"
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

// Size returns how many bindings a benchmark's store holds:
// ARK_BENCH_COPY_SIZE when set, else 100,000.
func Size(tb testing.TB) int {
	env := os.Getenv("ARK_BENCH_COPY_SIZE")
	if env == "" {
		return 100_000
	}
	n, err := strconv.Atoi(env)
	if err != nil {
		tb.Fatalf("ARK_BENCH_COPY_SIZE: %v", err)
	}
	return n
}

// Resolver returns a resolver of the NAAN 12345, with no cache, over a
// bbolt store of storetest.Bindings(n) read through a local copy that
// has caught up, and a table of one other identifier. Everything is
// closed when tb ends.
func Resolver(tb testing.TB, n int) *resolve.Resolver {
	tb.Helper()
	s := testkit.Provision(tb, &bolt.Store{Path: filepath.Join(tb.TempDir(), "ark.db"), SkipCheck: true})
	if _, err := s.Import(context.Background(), storetest.Bindings(n), "bench"); err != nil {
		tb.Fatal(err)
	}
	c, err := localcopy.Open(tb.TempDir(), s, localcopy.Options{Poll: time.Hour})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	if err := c.CatchUp(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tbl, err := table.Load(nil, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	if err != nil {
		tb.Fatal(err)
	}
	rs, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Store: localcopy.Wrap(s, c), MaxLength: 1024})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(rs.Close)
	return rs
}
