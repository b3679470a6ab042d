package pool

import (
	"errors"
	"slices"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"github.com/caddy-ark/caddy-ark/table"
	"go.uber.org/zap"
)

// defaultWatchInterval is how often watched table files are checked when
// watch_interval is not set.
const defaultWatchInterval = time.Second

// Watch starts watching the table files, when there are any, every
// interval (defaultWatchInterval when 0). When a new version has loaded,
// swap is called with it, under the lock Datestamp takes: it swaps the
// table in, and its error keeps the running table. Once the new version
// serves and the old one is released, swapped is called.
func (l *Live) Watch(interval time.Duration, swap func(table.Table) error, swapped func()) {
	if len(l.files.Paths) == 0 {
		return
	}
	if interval <= 0 {
		interval = defaultWatchInterval
	}
	l.stop = make(chan struct{})
	go l.watch(interval, l.stop, swap, swapped)
}

// StopWatching stops the watcher. It never waits for a table the watcher
// is reading, however large or slow: the watcher drops such a table
// instead of swapping it in (see reload). It may be called more than once.
func (l *Live) StopWatching() {
	if l.stop != nil {
		l.mu.Lock()
		close(l.stop)
		l.stop = nil
		l.mu.Unlock()
	}
}

// watch polls the table files every interval until stop is closed, and
// swaps in a new table when they have changed. A version of the files is
// read only once it has stayed the same across two polls, so a file still
// being written is not read (and if it were, it would fail to parse and
// not be applied). A version that fails to load is tried once, not at
// every poll.
func (l *Live) watch(interval time.Duration, stop <-chan struct{}, swap func(table.Table) error, swapped func()) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var pending, failed []fileStamp
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		now := statFiles(l.files.Paths)
		switch {
		case slices.Equal(now, l.stamps):
			pending = nil
		case !slices.Equal(now, pending):
			pending = now // changed since the last poll: wait for it to settle
		case !slices.Equal(now, failed):
			if err := l.reload(now, stop, swap, swapped); errors.Is(err, errChanged) {
				pending = nil
			} else if err != nil {
				failed = now
			}
		}
	}
}

// reload loads the table files at the versions stamps and has swap swap
// the table in (the handler: requests that have the old resolver finish
// with it, later ones get the new one, with a new, empty cache). On error
// the old table stays. A table read while the watcher was stopped is
// dropped.
func (l *Live) reload(stamps []fileStamp, stop <-chan struct{}, swap func(table.Table) error, swapped func()) error {
	key := tableKey(l.files.Paths, stamps, l.inline)
	t, err := l.acquire(key, stamps, metrics.TriggerWatch)
	if err != nil {
		return err
	}
	l.mu.Lock()
	select {
	case <-stop:
		l.mu.Unlock()
		_, _ = tables.Delete(key)
		return nil
	default:
	}
	if err := swap(t); err != nil {
		l.mu.Unlock()
		_, _ = tables.Delete(key)
		l.files.Logger.Error("table not reloaded: the running table keeps serving", zap.Error(err))
		return err
	}
	last := l.Release()
	l.key, l.stamps = key, stamps
	l.mu.Unlock()
	l.files.Logger.Info("table swapped in", zap.Strings("files", l.files.Paths), zap.Int("entries", t.Len()))
	swapped()
	if last {
		ReturnMemory()
	}
	return nil
}
