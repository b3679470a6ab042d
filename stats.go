package ark

import (
	"errors"
	"fmt"

	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/stats"
	"go.uber.org/zap"
)

// handlerStats is what a Handler keeps about its statistics.
type handlerStats struct {
	collector *stats.Collector // nil when statistics are off

	// Releases the store's shared object that the collector writes to,
	// held so that it stays open until the collector has written its
	// last counts, whatever order Caddy cleans the config's modules up
	// in.
	release func() error
}

// errStatsNoStore refuses statistics without a store to keep them in.
var errStatsNoStore = errors.New("stats: statistics are kept in the store, and this handler has none: " +
	"add store bolt <file> or store postgres <dsn> to the ark block (an api or a minter also gives it the bolt store in Caddy's data directory)")

// openStats starts counting the handler's answers when the configuration
// has a stats block. It needs the store, opened already, and rs for the
// shoulders of the site's policies.
func (h *Handler) openStats(rs *resolve.Resolver) error {
	if h.Stats == nil {
		return nil
	}
	if h.stores.store == nil {
		return errStatsNoStore
	}
	held, release, ok := h.stores.hold()
	if !ok {
		return fmt.Errorf("stats: the store %s keeps no statistics: it is not shared across configs", h.stores.id)
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
	h.stats.release = release
	h.stats.collector = stats.New(*h.Stats, stats.Options{
		Store:     held,
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
	if h.stats.release != nil {
		if err := h.stats.release(); err != nil {
			h.logger.Error("stats: releasing the store", zap.Error(err))
		}
		h.stats.release = nil
	}
}
