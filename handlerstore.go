package ark

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/lfu"
	"github.com/caddy-ark/caddy-ark/internal/suggest"
	"github.com/caddy-ark/caddy-ark/localcopy"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// handlerStore is what a Handler keeps about its store.
type handlerStore struct {
	store     store.Store
	id        caddy.ModuleID      // the store module's, for messages
	shared    store.Shared        // nil when the backend shares nothing
	cache     *resolve.StoreCache // nil when caching is off
	stopWatch context.CancelFunc
	copyDone  func() error  // lets go of the local copy; nil without one
	ready     chan struct{} // nil, or closed once the store is open (see awaitReady)
	readyErr  error         // why the handler cannot serve, once ready is closed
}

// awaitReady waits until the handler's store is open, when it opens as
// its configuration starts, and returns why the handler cannot serve, nil
// when it can. Such a configuration may receive requests before: Caddy
// starts its apps in no set order, and the HTTP server may listen first.
func (hs *handlerStore) awaitReady(ctx context.Context) error {
	if hs.ready == nil {
		return nil
	}
	select {
	case <-hs.ready:
		return hs.readyErr
	default: // not open yet: wait, which costs ctx.Done a channel of its own
	}
	select {
	case <-hs.ready:
		return hs.readyErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// defaultStore is the store of a handler with minters, an API or
// targets_check and no store line: the bolt file in Caddy's data
// directory.
var defaultStore = json.RawMessage(`{"backend":"bolt"}`)

// openStore loads the configured store module (the bolt store in Caddy's
// data directory when minters, the API or targets_check need one and none
// is configured) and then opens it, caching it and watching it to keep
// the cache true. It is the one place a handler's store is loaded:
// through ctx.LoadModule, so checked as strictly as every module of the
// config, and cleaned up with it. In a configuration (a handler of an
// HTTP server) the store opens only once the configuration runs: loaded
// with store.OpenLaterKey, it hands its opening to then instead of
// taking it in Provision, and later opens it; `caddy validate` never gets
// there. Elsewhere (a handler provisioned on its own) later is nil and
// the store opens at once. Statistics and target checking use this
// store, holding its shared object (see hold) where they must outlive
// the module.
func (h *Handler) openStore(ctx caddy.Context) (later func() error, err error) {
	h.useDefaultStore()
	if h.StoreRaw == nil {
		if h.LocalCopy != "" {
			return nil, fmt.Errorf("local_copy %s: there is no store to copy: configure one with store", h.LocalCopy)
		}
		return nil, nil
	}
	var opens []func() error
	loadCtx := ctx
	if ctx.Value(caddyhttp.ServerCtxKey) != nil {
		loadCtx = ctx.WithValue(store.OpenLaterKey{}, store.OpenLater(func(open func() error) { opens = append(opens, open) }))
	}
	mod, err := loadCtx.LoadModule(h, "StoreRaw")
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	s, ok := mod.(store.Store)
	if !ok {
		return nil, fmt.Errorf("store: module %T is not a Store", mod)
	}
	id := mod.(caddy.Module).CaddyModule().ID
	open := func() error {
		for _, open := range opens {
			if err := open(); err != nil {
				return fmt.Errorf("store: %w", err)
			}
		}
		return h.useStore(s, id)
	}
	if len(opens) > 0 {
		return open, nil
	}
	return nil, open()
}

// useStore makes s, open, the handler's store: caches it and watches it.
func (h *Handler) useStore(s store.Store, id caddy.ModuleID) error {
	h.stores.store, h.stores.id = s, id
	h.stores.shared, _ = s.(store.Shared)
	if h.LocalCopy != "" {
		var err error
		if h.stores.store, h.stores.copyDone, err = localcopy.Attach(h.LocalCopy, string(h.StoreRaw), s, h.stores.shared, h.logger); err != nil {
			return err
		}
	}
	if h.CacheSize >= 0 {
		c, err := lfu.New[*table.Assignment](h.cacheSize())
		if err != nil {
			return err
		}
		h.stores.cache = resolve.NewStoreCache(c)
	}
	watchCtx, stop := context.WithCancel(context.Background())
	h.stores.stopWatch = stop
	h.stores.store.Watch(watchCtx, h.storeChanged)
	return nil
}

// useDefaultStore configures the default store when minters, the API or
// targets_check need one and none is configured.
func (h *Handler) useDefaultStore() {
	if h.StoreRaw == nil && (len(h.Minters) > 0 || h.API != nil || h.TargetsCheck != nil) {
		h.StoreRaw = defaultStore
	}
}

// hold returns the store's shared object, kept open until release is
// called even once Caddy has cleaned up the handler's store module; ok
// is false when the backend shares nothing.
func (hs *handlerStore) hold() (held store.Store, release func() error, ok bool) {
	if hs.shared == nil {
		return nil, nil, false
	}
	held, release = hs.shared.Hold()
	return held, release, true
}

// storeChanged forgets what the cache holds for keys (everything for nil).
func (h *Handler) storeChanged(keys []string) {
	if h.stores.cache != nil {
		h.stores.cache.Forget(keys)
	}
}

// closeStore stops watching the store and drops the cache; Caddy cleans
// up the store module itself.
func (h *Handler) closeStore() {
	if h.stores.stopWatch != nil {
		h.stores.stopWatch()
	}
	if h.stores.cache != nil {
		h.stores.cache.Close()
	}
	if h.stores.copyDone != nil {
		_ = h.stores.copyDone()
	}
}

// Store returns the handler's store, nil when it has none. The API uses
// it to bind and withdraw.
func (h *Handler) Store() store.Store { return h.stores.store }

// TableSource reports whether the table files or the configuration
// assign key, a normalized identifier, and where: "/srv/ids.json", or
// "/srv/ids.json entry 12" in a file of several entries, or "the map at
// /etc/caddy/Caddyfile:7". The store never answers for such a key, so the
// API refuses to bind it (409), naming the source.
func (h *Handler) TableSource(key string) (string, bool) {
	rs := h.resolver.Load()
	if rs == nil {
		return "", false
	}
	return rs.Table().SourceOf(key)
}

// unmarshalStore reads "store [<backend> [<args>...] [{ ... }]]": the
// backend module ark.stores.<backend> reads the rest. "store" alone is the
// bolt store in Caddy's data directory.
func (h *Handler) unmarshalStore(d *caddyfile.Dispenser) error {
	if !d.NextArg() {
		h.StoreRaw = defaultStore
		return nil
	}
	name := d.Val()
	if _, err := caddy.GetModule("ark.stores." + name); err != nil {
		var backends []string
		for _, m := range caddy.GetModules("ark.stores") {
			backends = append(backends, m.ID.Name())
		}
		return d.Errf("store: unknown backend %q%s (the backends are %s)", name, suggest.DidYouMean(name, backends), strings.Join(backends, ", "))
	}
	unm, err := caddyfile.UnmarshalModule(d, "ark.stores."+name)
	if err != nil {
		return err
	}
	h.StoreRaw = caddyconfig.JSONModuleObject(unm, "backend", name, nil)
	return nil
}
