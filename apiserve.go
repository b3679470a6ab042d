package ark

import (
	"context"
	"net/http"

	"github.com/caddy-ark/caddy-ark/console"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddy-ark/caddy-ark/store"
	"go.uber.org/zap"
)

// serveAPI answers a request for the API, or for its console.
func (h *Handler) serveAPI(w http.ResponseWriter, r *http.Request, route, rest string) error {
	if route == console.Route && h.console != nil {
		return h.console.Serve(w, r, rest, handlerSite{h})
	}
	return h.API.Serve(w, r, route, rest, handlerSite{h})
}

// handlerSite is the handler as the API sees it.
type handlerSite struct{ h *Handler }

func (s handlerSite) Resolver() *resolve.Resolver { return s.h.resolver.Load() }
func (s handlerSite) Store() store.Store          { return s.h.Store() }
func (s handlerSite) Minters() mint.Minters       { return s.h.minters }
func (s handlerSite) Logger() *zap.Logger         { return s.h.logger }
func (s handlerSite) Stats() *stats.Collector     { return s.h.stats.collector }

func (s handlerSite) Mint(ctx context.Context, shoulder string, n int, by string, bind func(key string) (store.Binding, error)) ([]string, error) {
	return s.h.Mint(ctx, shoulder, n, by, bind)
}
