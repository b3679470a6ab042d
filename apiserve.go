package ark

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/caddy-ark/caddy-ark/console"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/normalize"
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

// Mint mints n names (1 to MintMax) under shoulder ("ark:12345/x5", in any
// equivalent spelling) and returns their keys. Every name is new: never
// in the store (minted, bound or withdrawn) nor assigned by a table, and
// it is stored before Mint returns. With bind, each name is stored with
// the binding bind builds for it (its Key is set by Mint); without, it is
// reserved with no target. When bind refuses a name, Mint stops before
// storing it, or any other name of its batch, and returns bind's error.
// by names the API key, for the history.
//
// When the template's names run out Mint fails with ErrSpaceExhausted;
// names it stored before that are returned with the error.
func (h *Handler) Mint(ctx context.Context, shoulder string, n int, by string, bind func(key string) (store.Binding, error)) ([]string, error) {
	if n < 1 || n > mint.MintMax {
		return nil, mint.ErrMintCount
	}
	naan, sh, err := normalize.ParsePrefix(shoulder)
	if err != nil {
		return nil, err
	}
	m := h.minters.Find("ark:" + naan + "/" + sh)
	rs := h.resolver.Load()
	if m == nil || rs == nil || rs.Store() == nil {
		return nil, fmt.Errorf("%s: %w", shoulder, mint.ErrNoMinter)
	}
	keys, err := mint.Mint(ctx, m, rs.Store(), rs.Table(), n, by, bind)
	if errors.Is(err, mint.ErrSpaceExhausted) {
		h.logs.Log("names run out: "+m.Shoulder, zap.WarnLevel, "a minter's names have run out", zap.String("shoulder", m.Shoulder))
	}
	return keys, err
}
