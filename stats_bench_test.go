package ark

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// BenchmarkServeHTTPStats measures the whole handler, as
// BenchmarkServeHTTP does, with statistics off and on (a collector over a
// bolt store, not flushed during the run), for a redirect and a name that
// resolves to nothing, from one goroutine and from GOMAXPROCS at once.
// "dropped/op" is the share of answers the counting could not keep up
// with: a loop without network asks far faster than clients do.
func BenchmarkServeHTTPStats(b *testing.B) {
	keys := syntheticKeys(100_000)
	tablePath := writeSyntheticTable(b, b.TempDir(), keys)
	st := testkit.Provision(b, &bolt.Store{Path: filepath.Join(b.TempDir(), "store.db")})
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error { return nil })
	for _, on := range []bool{false, true} {
		h := &Handler{Tables: []string{tablePath}, Foreign: "404", NoSignposting: true, NoNegotiation: true, logger: zap.NewNop()}
		mode := "off"
		if on {
			mode = "on"
			h.stats.collector = stats.New(stats.Config{}, stats.Options{Store: st, Ours: h.ours, Logger: zap.NewNop()})
		}
		serveWith(b, h, loadTable(b, h))
		for name, path := range map[string]string{"redirect": "/" + keys[42], "notfound": "/ark:12345/x5nothere"} {
			request := func() (*httptest.ResponseRecorder, *http.Request) {
				r := httptest.NewRequest(http.MethodGet, path, nil)
				return httptest.NewRecorder(), r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer()))
			}
			report := func(b *testing.B, before uint64) {
				if h.stats.collector != nil {
					b.ReportMetric(float64(h.stats.collector.Dropped()-before)/float64(b.N), "dropped/op")
				}
			}
			dropped := func() uint64 {
				if h.stats.collector == nil {
					return 0
				}
				return h.stats.collector.Dropped()
			}
			b.Run("stats="+mode+"/"+name, func(b *testing.B) {
				w, r := request()
				before := dropped()
				b.ReportAllocs()
				for b.Loop() {
					clear(w.Header())
					if err := h.ServeHTTP(w, r, next); err != nil {
						b.Fatal(err)
					}
				}
				report(b, before)
			})
			b.Run("stats="+mode+"/"+name+"/parallel", func(b *testing.B) {
				before := dropped()
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					w, r := request()
					for pb.Next() {
						clear(w.Header())
						if err := h.ServeHTTP(w, r, next); err != nil {
							b.Fatal(err)
						}
					}
				})
				report(b, before)
			})
		}
		if h.stats.collector != nil {
			h.stats.collector.Close()
		}
	}
}
