package ark

import (
	"errors"
	"slices"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"go.uber.org/zap"
)

// defaultWatchInterval is how often watched table files are checked when
// watch_interval is not set.
const defaultWatchInterval = time.Second

// startWatching starts the watcher when watch is on and there are table
// files.
func (h *Handler) startWatching() {
	if h.Watch && len(h.Tables) > 0 {
		interval := time.Duration(h.WatchInterval)
		if interval <= 0 {
			interval = defaultWatchInterval
		}
		h.live.stop = make(chan struct{})
		go h.watch(interval, h.live.stop)
	}
}

// stopWatching stops the watcher. It never waits for a table the watcher
// is reading, however large or slow: the watcher drops such a table
// instead of swapping it in (see reload). It may be called more than once.
func (h *Handler) stopWatching() {
	if h.live.stop != nil {
		h.live.mu.Lock()
		close(h.live.stop)
		h.live.stop = nil
		h.live.mu.Unlock()
	}
}

// watch polls the table files every interval until stop is closed, and
// swaps in a new table when they have changed. A version of the files is
// read only once it has stayed the same across two polls, so a file still
// being written is not read (and if it were, it would fail to parse and
// not be applied). A version that fails to load is tried once, not at
// every poll.
func (h *Handler) watch(interval time.Duration, stop <-chan struct{}) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var pending, failed []fileStamp
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		now := statFiles(h.Tables)
		switch {
		case slices.Equal(now, h.live.stamps):
			pending = nil
		case !slices.Equal(now, pending):
			pending = now // changed since the last poll: wait for it to settle
		case !slices.Equal(now, failed):
			if err := h.reload(now, stop); errors.Is(err, errChanged) {
				pending = nil
			} else if err != nil {
				failed = now
			}
		}
	}
}

// reload loads the table files at the versions stamps and swaps the table
// in: requests that have the old resolver finish with it, later ones get
// the new one, with a new, empty cache. The old cache is closed at once,
// so that its memory is not held until the old resolver is collected:
// requests still using it miss, which is safe (see resolutionCache). On
// error the old table stays. A table read while the watcher was stopped
// is dropped.
func (h *Handler) reload(stamps []fileStamp, stop <-chan struct{}) error {
	key := tableKey(h.Tables, stamps, h.live.inline)
	t, err := h.acquireTable(key, stamps, metrics.TriggerWatch)
	if err != nil {
		return err
	}
	h.live.mu.Lock()
	select {
	case <-stop:
		h.live.mu.Unlock()
		_, _ = tables.Delete(key)
		return nil
	default:
	}
	rs, err := h.newResolver(t)
	if err != nil {
		h.live.mu.Unlock()
		_, _ = tables.Delete(key)
		h.logger.Error("table not reloaded: the running table keeps serving", zap.Error(err))
		return err
	}
	if old := h.resolver.Swap(rs); old != nil {
		old.Close()
	}
	last := h.releaseTable()
	h.live.key, h.live.stamps = key, stamps
	h.live.mu.Unlock()
	h.logger.Info("table swapped in", zap.Strings("files", h.Tables), zap.Int("entries", t.Len()))
	h.tablesChanged()
	if last {
		returnMemory()
	}
	return nil
}
