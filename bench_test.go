package ark

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/answer"
	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// syntheticKeys returns n distinct ARKs shaped like minted ones:
// ark:12345/<shoulder><8-character blade>.
func syntheticKeys(n int) []string {
	rng := rand.New(rand.NewPCG(7, 11))
	shoulders := []string{"x5", "b2", "t3", "fk4", "q7"}
	seen := make(map[string]bool, n)
	keys := make([]string, 0, n)
	for len(keys) < n {
		blade := make([]byte, 8)
		for i := range blade {
			blade[i] = mint.Betanumeric[rng.IntN(len(mint.Betanumeric))]
		}
		k := "ark:12345/" + shoulders[rng.IntN(len(shoulders))] + string(blade)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// writeSyntheticTable writes a redirect table for keys into dir.
func writeSyntheticTable(tb testing.TB, dir string, keys []string) string {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("arks-%d.json", len(keys)))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("{\"entries\": [\n")
	for i, k := range keys {
		if i > 0 {
			w.WriteString(",\n")
		}
		fmt.Fprintf(w, `{"id": %q, "target": "https://repo.example.org/%s"}`, k, k[len("ark:12345/"):])
	}
	w.WriteString("\n]}\n")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkTableLoad reads a table file of n entries and reports the heap
// it keeps per entry. ARK_BENCH_TABLE_SIZES (e.g. "1000000,10000000")
// replaces the default sizes, 100k and 1M.
func BenchmarkTableLoad(b *testing.B) {
	sizes := []int{100_000, 1_000_000}
	if env := os.Getenv("ARK_BENCH_TABLE_SIZES"); env != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("ARK_BENCH_TABLE_SIZES: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			path := writeSyntheticTable(b, b.TempDir(), syntheticKeys(n))
			var kept uint64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				t, err := table.Load([]string{path}, nil)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				kept = after.HeapAlloc - before.HeapAlloc
				runtime.KeepAlive(t)
			}
			b.ReportMetric(float64(kept)/float64(n), "B/entry")
		})
	}
}

// benchResolver builds a resolver over a synthetic table of n ARKs.
func benchResolver(b *testing.B, keys []string, cacheSize int) *resolve.Resolver {
	b.Helper()
	h := &Handler{Tables: []string{writeSyntheticTable(b, b.TempDir(), keys)}, CacheSize: cacheSize, Foreign: "404"}
	rs, err := newBenchResolver(h)
	if err != nil {
		b.Fatal(err)
	}
	return rs
}

// newBenchResolver loads h's table and builds its resolver, as Provision
// does without a Caddy context.
func newBenchResolver(h *Handler) (*resolve.Resolver, error) {
	t, err := table.Load(h.Tables, h.Entries)
	if err != nil {
		return nil, err
	}
	return h.newResolver(t)
}

// serveWith readies h to serve table t as Provision does without a Caddy
// context: base_url, the resolver and the answer path.
func serveWith(tb testing.TB, h *Handler, t table.Table) {
	tb.Helper()
	h.base, _ = answer.ParseBaseURL(h.BaseURL)
	rs, err := h.newResolver(t)
	if err != nil {
		tb.Fatal(err)
	}
	h.resolver.Store(rs)
	page, err := info.LoadPage(h.InfoTemplate)
	if err != nil {
		tb.Fatal(err)
	}
	if err := h.provisionAnswers(page); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(h.answers.Close)
}

// loadTable loads h's table as Provision does, without the pool.
func loadTable(tb testing.TB, h *Handler) table.Table {
	tb.Helper()
	t, err := table.Load(h.Tables, h.Entries)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// BenchmarkResolve measures resolution of request cores against a
// 1M-entry table, with the cache on and off.
func BenchmarkResolve(b *testing.B) {
	keys := syntheticKeys(1_000_000)
	for _, cache := range []struct {
		name string
		size int
	}{{"cache", 0}, {"nocache", -1}} {
		rs := benchResolver(b, keys, cache.size)
		cores := map[string]func(i int) string{
			"exact":     func(i int) string { return keys[i%1000][:] },
			"messy":     func(i int) string { k := keys[i%1000]; return "ARK:/12-345/" + k[10:12] + "-" + k[12:] },
			"inherited": func(i int) string { return keys[i%1000] + "/c2/s4.en.pdf" },
			"unknown":   func(i int) string { return fmt.Sprintf("ark:12345/zz%d", i%1000) },
		}
		for _, kind := range []string{"exact", "messy", "inherited", "unknown"} {
			b.Run(cache.name+"/"+kind, func(b *testing.B) {
				in := make([]string, 1000)
				for i := range in {
					in[i] = cores[kind](i)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if res := rs.Resolve(context.Background(), in[i%len(in)]); res.Status == 0 {
						b.Fatal("no answer")
					}
					i++
				}
			})
		}
	}
}

// BenchmarkServeHTTP measures the whole handler for a redirect and an
// in-place answer, without the network: what a request costs in Caddy on
// top of routing.
func BenchmarkServeHTTP(b *testing.B) {
	keys := syntheticKeys(100_000)
	h := &Handler{Tables: []string{writeSyntheticTable(b, b.TempDir(), keys)}, Foreign: "404", NoSignposting: true, NoNegotiation: true,
		Entries: []table.Entry{{ID: "ark:12345/inplace1", Target: "/objects/inplace1.html"}}, logger: zap.NewNop()}
	serveWith(b, h, loadTable(b, h))
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error { // serves every in-place target
		w.WriteHeader(http.StatusOK)
		return nil
	})
	for name, path := range map[string]string{"redirect": "/" + keys[42], "inplace": "/ark:/12345/in-place1"} {
		b.Run(name, func(b *testing.B) {
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodGet, path, nil)
			r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer()))
			url, uri := *r.URL, r.RequestURI
			b.ReportAllocs()
			for b.Loop() {
				*r.URL, r.RequestURI = url, uri // undo the in-place rewrite
				clear(w.Header())
				if err := h.ServeHTTP(w, r, next); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The answer to a request for an identifier the table holds, in normal
// form, redirected, makes as few allocations as Caddy's request lifecycle
// allows (issue 27; BENCHMARKS.md, "Session 12"): one room for the whole
// answer, the func that gives Caddy's replacer the request's
// {http.ark.*} placeholders, and the text of the Link header, built from
// the site's URL and the key; a compiled table also copies the target
// out of its mapping. With signposting on (the default) and off, from a
// table in the heap and a compiled one.
func TestRedirectHitAllocations(t *testing.T) {
	keys := syntheticKeys(100)
	src := writeSyntheticTable(t, t.TempDir(), keys)
	compiled := filepath.Join(t.TempDir(), "t.arkt")
	if _, err := table.Compile([]string{src}, compiled); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		file        string
		signposting bool
		want        float64
	}{
		{"heap, signposting", src, true, 3},
		{"heap, no signposting", src, false, 3},
		{"compiled, signposting", compiled, true, 4},
		{"compiled, no signposting", compiled, false, 4},
	} {
		h := &Handler{Tables: []string{c.file}, Foreign: "404", BaseURL: "https://ark.example.org", NoSignposting: !c.signposting, logger: zap.NewNop()}
		tbl, err := table.Open(h.Tables, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		serveWith(t, h, tbl)
		// Each request has a replacer of its own, to which Caddy's server
		// has already given its http.* placeholders, as it does before
		// any handler runs.
		reqs := make([]*http.Request, 101) // AllocsPerRun runs once more than asked
		for i := range reqs {
			r := httptest.NewRequest(http.MethodGet, "/"+keys[42], nil)
			repl := caddy.NewReplacer()
			repl.Map(func(string) (any, bool) { return nil, false })
			reqs[i] = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
		}
		w := headerOnlyWriter{header: http.Header{}}
		i := 0
		allocs := testing.AllocsPerRun(len(reqs)-1, func() {
			clear(w.header)
			if err := h.ServeHTTP(w, reqs[i], nil); err != nil {
				t.Fatal(err)
			}
			i++
		})
		if w.header.Get("Location") != "https://repo.example.org/"+keys[42][len("ark:12345/"):] || w.header.Get("Link") == "" {
			t.Fatalf("%s: not the redirect measured: %v", c.name, w.header)
		}
		if allocs > c.want {
			t.Errorf("%s: the redirect hit allocates %v times, want at most %v", c.name, allocs, c.want)
		}
	}
}

// headerOnlyWriter is a ResponseWriter that keeps only the header.
type headerOnlyWriter struct{ header http.Header }

func (w headerOnlyWriter) Header() http.Header         { return w.header }
func (w headerOnlyWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w headerOnlyWriter) WriteHeader(int)             {}

// BenchmarkCacheHitRatio replays a Zipf-distributed workload over 100k
// ARKs below table ARKs mixed half and half with never-repeated unknown
// ARKs, through a 10k-entry cache, and reports the hit ratio of the hot set
// (the 1000 most requested ARKs) and of all requests. The ARKs are
// requested with a qualifier ("/c2/s4"), which the resolver answers by
// walking up to the table ARK: a table ARK itself, in any spelling, is
// answered from the table without the cache. Admission (the cache's
// doorkeeper, then ristretto's TinyLFU) is what keeps the unknown flood
// from evicting the hot set.
func BenchmarkCacheHitRatio(b *testing.B) {
	keys := syntheticKeys(100_000)
	rs := benchResolver(b, keys, 10_000)
	rng := rand.New(rand.NewPCG(3, 5))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(keys)-1))
	var hotHits, hot, hits, all int
	i := 0
	for b.Loop() {
		var core string
		isHot := false
		if i%2 == 0 {
			n := zipf.Uint64()
			core, isHot = "ark:/"+keys[n][len("ark:"):]+"/c2/s4", n < 1000
		} else {
			core = fmt.Sprintf("ark:12345/unknown%d", i)
		}
		i++
		hits0 := testkit.CounterValue(b, metrics.Counters.CacheHits)
		rs.Resolve(context.Background(), core)
		hit := testkit.CounterValue(b, metrics.Counters.CacheHits) > hits0
		all++
		if hit {
			hits++
		}
		if isHot {
			hot++
			if hit {
				hotHits++
			}
		}
	}
	if hot > 0 {
		b.ReportMetric(float64(hotHits)/float64(hot), "hot-hit-ratio")
	}
	b.ReportMetric(float64(hits)/float64(all), "hit-ratio")
}

// BenchmarkServeHTTPSignposting measures the handler as BenchmarkServeHTTP
// does, with signposting and negotiation on (the default): a plain
// resolution, from curl (*/*) and from a browser, whose Link header comes
// from the per-identifier cache, and a metadata request's 303. Compare
// its allocations with BenchmarkServeHTTP's, whose handler has them off
// and adds the two links of before.
func BenchmarkServeHTTPSignposting(b *testing.B) {
	keys := syntheticKeys(100_000)
	h := &Handler{Tables: []string{writeSyntheticTable(b, b.TempDir(), keys)}, Foreign: "404", BaseURL: "https://ark.example.org",
		Entries: []table.Entry{{ID: "ark:12345/inplace1", Target: "/objects/inplace1.html", Meta: map[string]string{
			"who": "Curie, Marie <0000-0002-1825-0097>", "what": "Field notes", "when": "1903", "type": "Dataset", "license": "CC-BY-4.0"}}},
		logger: zap.NewNop()}
	serveWith(b, h, loadTable(b, h))
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error {
		w.WriteHeader(http.StatusOK)
		return nil
	})
	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
	for _, c := range []struct{ name, path, accept string }{
		{"redirect", "/" + keys[42], "*/*"},
		{"inplace", "/ark:/12345/in-place1", "*/*"},
		{"inplace-browser", "/ark:/12345/in-place1", browser},
		{"metadata-303", "/ark:/12345/in-place1", "application/x-bibtex"},
	} {
		b.Run(c.name, func(b *testing.B) {
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodGet, c.path, nil)
			r.Header.Set("Accept", c.accept)
			r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer()))
			url, uri := *r.URL, r.RequestURI
			b.ReportAllocs()
			for b.Loop() {
				*r.URL, r.RequestURI = url, uri
				clear(w.Header())
				if err := h.ServeHTTP(w, r, next); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
