package ark

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// handlerStats is what a Handler keeps about its statistics.
type handlerStats struct {
	collector *stats.Collector // nil when statistics are off

	// The statistics' own instance of the store module. Caddy cleans up a
	// config's modules in no set order, so the handler's store may be
	// gone when the handler is cleaned up; this one stays until the
	// collector has written its last counts.
	store caddy.Module
}

// errStatsNoStore refuses statistics without a store to keep them in.
var errStatsNoStore = errors.New("stats: statistics are kept in the store, and this handler has none: " +
	"add store bolt <file> or store postgres <dsn> to the ark block (an api or a minter also gives it the bolt store in Caddy's data directory)")

// openStats starts counting the handler's answers when the configuration
// has a stats block. It needs the store, opened already, and rs for the
// shoulders of the site's policies.
func (h *Handler) openStats(ctx caddy.Context, rs *resolve.Resolver) error {
	if h.Stats == nil {
		return nil
	}
	if h.stores.raw == nil {
		return errStatsNoStore
	}
	mod, err := loadOwnStore(ctx, h.stores.raw)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	ss, ok := mod.(store.StatsStore)
	if !ok {
		return errors.Join(fmt.Errorf("stats: the store %s keeps no statistics", mod.CaddyModule().ID), cleanupModule(mod))
	}
	var shoulders []string
	for _, m := range h.minters {
		shoulders = append(shoulders, m.Shoulder)
	}
	for _, byShoulder := range rs.Policies() {
		for shoulder, p := range byShoulder {
			if shoulder != "" {
				shoulders = append(shoulders, p.Prefix)
			}
		}
	}
	h.stats.store = mod
	h.stats.collector = stats.New(*h.Stats, stats.Options{
		Store:     ss,
		Ours:      h.ours,
		Shoulders: shoulders,
		Logger:    h.logger,
	})
	return nil
}

// ours reports whether naan is one of the site's NAANs, by its current
// resolver.
func (h *Handler) ours(naan string) bool {
	rs := h.resolver.Load()
	return rs != nil && rs.Ours(naan)
}

// closeStats writes the counts not written yet and releases the
// statistics' store. The collector stays: a request that outlives its
// server may still hand it an answer (not counted) or ask for a report
// (refused, 503).
func (h *Handler) closeStats() {
	if h.stats.collector != nil {
		if err := h.stats.collector.Close(); err != nil {
			h.logger.Error("stats: the last counts could not be written", zap.Error(err))
		}
	}
	if h.stats.store != nil {
		if err := cleanupModule(h.stats.store); err != nil {
			h.logger.Error("stats: releasing the store", zap.Error(err))
		}
		h.stats.store = nil
	}
}

// loadOwnStore provisions an instance of the store module that raw
// configures ({"backend": "bolt", ...}), as ctx.LoadModule would, but not
// as one of the config's modules: its caller cleans it up. Backends share
// their files and connections between instances, so it costs little.
func loadOwnStore(ctx caddy.Context, raw json.RawMessage) (caddy.Module, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	var backend string
	if err := json.Unmarshal(fields["backend"], &backend); err != nil {
		return nil, fmt.Errorf("store: backend: %w", err)
	}
	delete(fields, "backend")
	info, err := caddy.GetModule("ark.stores." + backend)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	mod := info.New()
	config, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	if err := caddy.StrictUnmarshalJSON(config, mod); err != nil {
		return nil, fmt.Errorf("store %s: %w", backend, err)
	}
	if p, ok := mod.(caddy.Provisioner); ok {
		if err := p.Provision(ctx); err != nil {
			return nil, errors.Join(err, cleanupModule(mod))
		}
	}
	if v, ok := mod.(caddy.Validator); ok {
		if err := v.Validate(); err != nil {
			return nil, errors.Join(err, cleanupModule(mod))
		}
	}
	return mod, nil
}

// cleanupModule cleans up mod, if it has anything to clean up.
func cleanupModule(mod caddy.Module) error {
	if c, ok := mod.(caddy.CleanerUpper); ok {
		return c.Cleanup()
	}
	return nil
}
