package ark

import (
	"context"
	"errors"
	"fmt"

	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
	"go.uber.org/zap"
)

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
		h.logger.Warn("a minter's names have run out", zap.String("shoulder", m.Shoulder))
	}
	return keys, err
}
