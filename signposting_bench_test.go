package ark

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

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
	h.base, _ = parseBaseURL(h.BaseURL)
	if err := h.provisionMachineReadable(defaultCacheSize); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(h.closeMachineReadable)
	rs, err := newBenchResolver(h)
	if err != nil {
		b.Fatal(err)
	}
	h.resolver.Store(rs)
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
