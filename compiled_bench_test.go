package ark

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/caddy-ark/caddy-ark/table"
)

// BenchmarkTableLookup looks up uniformly random keys of a table of
// ARK_BENCH_LOOKUP_SIZE entries (default 1M), present and absent, in the
// heap table and in the same table compiled, once its pages are warm.
func BenchmarkTableLookup(b *testing.B) {
	n := 1_000_000
	if env := os.Getenv("ARK_BENCH_LOOKUP_SIZE"); env != "" {
		var err error
		if n, err = strconv.Atoi(env); err != nil {
			b.Fatalf("ARK_BENCH_LOOKUP_SIZE: %v", err)
		}
	}
	keys := syntheticKeys(n)
	dir := b.TempDir()
	src := writeSyntheticTable(b, dir, keys)
	heap, err := table.Load([]string{src}, nil)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "t.arkt")
	if _, err := table.Compile([]string{src}, out); err != nil {
		b.Fatal(err)
	}
	compiled, err := table.OpenCompiled(out, true) // verify reads every page: warm
	if err != nil {
		b.Fatal(err)
	}
	for _, form := range []struct {
		name string
		t    table.Table
	}{{"heap", heap}, {"compiled", compiled}} {
		for _, kind := range []string{"present", "absent"} {
			b.Run(form.name+"/"+kind, func(b *testing.B) {
				rng := rand.New(rand.NewPCG(3, 5))
				suffix := map[string]string{"present": "", "absent": "z"}[kind]
				probe := make([]string, 1<<16)
				for i := range probe {
					probe[i] = keys[rng.IntN(len(keys))] + suffix
				}
				i := 0
				for b.Loop() {
					_, ok := form.t.Lookup(probe[i&(len(probe)-1)])
					if ok != (suffix == "") {
						b.Fatal("wrong answer")
					}
					i++
				}
			})
		}
	}
}
