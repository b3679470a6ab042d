package ark

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/logsum"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
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

// BenchmarkServeCompiled measures the whole handler answering redirects
// from a compiled table for uniformly random keys, spelled as the load
// test spells them (bench/wrk/arks.lua, mode=vary), without the network.
// ARK_BENCH_COMPILED and ARK_BENCH_KEYS name a compiled table and its keys
// (gentable -keys, e.g. 10M entries under /work/bench-data); without them,
// a table of 1M synthetic keys is compiled.
func BenchmarkServeCompiled(b *testing.B) {
	path, keys := os.Getenv("ARK_BENCH_COMPILED"), []string(nil)
	if path == "" {
		keys = syntheticKeys(1_000_000)
		dir := b.TempDir()
		path = filepath.Join(dir, "t.arkt")
		if _, err := table.Compile([]string{writeSyntheticTable(b, dir, keys)}, path); err != nil {
			b.Fatal(err)
		}
	} else {
		keys = readKeys(b, os.Getenv("ARK_BENCH_KEYS"))
	}
	h := &Handler{Tables: []string{path}, Foreign: "404", NoSignposting: true, NoNegotiation: true, logger: zap.NewNop()}
	h.logs = logsum.New(h.logger, time.Minute)
	t, err := table.Open(h.Tables, nil, true) // verify reads every page: warm
	if err != nil {
		b.Fatal(err)
	}
	serveWith(b, h, t)
	rng := rand.New(rand.NewPCG(3, 5))
	paths := make([]string, 1<<18)
	for i := range paths {
		paths[i] = "/" + varySpelling(rng, keys[rng.IntN(len(keys))])
	}
	reqs := make([]*http.Request, len(paths))
	for i, p := range paths {
		reqs[i] = httptest.NewRequest(http.MethodGet, p, nil)
	}
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
	w := httptest.NewRecorder()
	b.ReportAllocs()
	cpu0, _ := processCPU()
	i := 0
	for b.Loop() {
		clear(w.Header())
		r := reqs[i&(len(reqs)-1)]
		r = r.WithContext( // a replacer of its own, as Caddy gives each request
			context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer()))
		if err := h.ServeHTTP(w, r, next); err != nil || w.Header().Get("Location") == "" {
			b.Fatalf("%s: %v, %v", paths[i&(len(paths)-1)], err, w.Header())
		}
		i++
	}
	// On a shared machine the time per request depends on what else runs;
	// the CPU time this process used per request much less.
	if cpu1, ok := processCPU(); ok {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
}

// readKeys reads a keys file written by gentable -keys: one ARK a line.
func readKeys(tb testing.TB, path string) []string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Fields(string(data))
}

// varySpelling spells the ARK key in an equivalent way, as arks.lua's
// mode=vary does: another label, hyphens, an upper-case NAAN, now and
// then one percent-encoded character.
func varySpelling(rng *rand.Rand, key string) string {
	s := strings.TrimPrefix(key, "ark:")
	for range rng.IntN(4) {
		p := 1 + rng.IntN(len(s)-1)
		s = s[:p] + "-" + s[p:]
	}
	if rng.IntN(10) < 3 {
		for p := rng.IntN(len(s)); ; p = (p + 1) % len(s) {
			if c := s[p]; c >= '0' && c <= '9' || c >= 'a' && c <= 'z' {
				s = s[:p] + fmt.Sprintf("%%%02X", c) + s[p+1:]
				break
			}
		}
	}
	return []string{"ark:", "ark:/", "ARK:/", "Ark:"}[rng.IntN(4)] + s
}
