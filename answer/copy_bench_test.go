package answer_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/caddy-ark/caddy-ark/answer"
	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/localcopy/copytest"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// BenchmarkServeCopyMiss answers random identifiers of a store of
// ARK_BENCH_COPY_SIZE bindings (default 100,000) read through a local
// copy, with no cache, signposting on and no base_url, as
// `bench/pgload.sh copy` asks them of a real Caddy: the whole answer a
// request costs the handler (issue 39), short of Caddy's own work and
// net/http's writing of the header.
func BenchmarkServeCopyMiss(b *testing.B) {
	n := copytest.Size(b)
	rs := copytest.Resolver(b, n)
	page, err := info.LoadPage("")
	if err != nil {
		b.Fatal(err)
	}
	an := new(answer.Answerer)
	if err := an.Provision(answer.Config{Logger: zap.NewNop(), InfoPage: page}); err != nil {
		b.Fatal(err)
	}
	defer an.Close()
	// Requests as Caddy's server hands them to a handler: a server of a
	// site configured for no host by name, and a replacer with the
	// request's http.* placeholders.
	srv := new(caddyhttp.Server)
	reqs := make([]*http.Request, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range reqs {
		reqs[i] = httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/"+storetest.Key(rng.IntN(n)), nil)
	}
	ctx := context.WithValue(context.Background(), caddyhttp.ServerCtxKey, srv)
	w := &headerWriter{header: http.Header{}}
	runtime.GC() // not the setup's garbage
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// Each request has a replacer of its own, to which Caddy's server
		// has given its http.* placeholders: its allocations, and the
		// request's, are Caddy's, counted here too.
		repl := caddy.NewReplacer()
		repl.Map(httpVars)
		r := reqs[i%len(reqs)].WithContext(context.WithValue(ctx, caddy.ReplacerCtxKey, repl))
		clear(w.header)
		if err := an.Serve(w, r, rs, nil); err != nil || w.status != http.StatusFound {
			b.Fatalf("%s: %d %v", r.URL, w.status, err)
		}
		i++
	}
}

// httpVars stands for the http.* placeholders Caddy's server gives each
// request's replacer before any handler runs.
func httpVars(string) (any, bool) { return nil, false }

// headerWriter is a ResponseWriter that keeps the header and the status
// only.
type headerWriter struct {
	header http.Header
	status int
}

func (w *headerWriter) Header() http.Header         { return w.header }
func (w *headerWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *headerWriter) WriteHeader(status int)      { w.status = status }
