package resolve

import (
	"sync"
	"sync/atomic"

	"github.com/caddy-ark/caddy-ark/table"
)

// StoreCache holds what the store answered for keys: an assignment, or nil
// for a key it does not hold. It is the handler's for as long as the
// handler runs (table swaps keep it), and Watch empties it of changed
// keys, so a change is seen by the very next request.
//
// A lookup that was under way while a key changed must not put the old
// answer back after the key was forgotten: forgetting moves epoch on
// before deleting, and a lookup that finds epoch moved on since it started
// deletes what it has just stored.
type StoreCache struct {
	c      KV[*table.Assignment]
	epoch  atomic.Uint64
	mu     sync.RWMutex
	closed bool
}

// NewStoreCache makes a store cache on c, a bounded cache such as
// ristretto's.
func NewStoreCache(c KV[*table.Assignment]) *StoreCache {
	return &StoreCache{c: c}
}

// KV is a bounded cache by string key; ristretto's Cache is one.
type KV[V any] interface {
	Get(key string) (V, bool)
	Set(key string, value V, cost int64) bool
	Del(key string)
	Clear()
	Close()
}

// get returns the cached answers for keys, and false if one is missing.
func (sc *StoreCache) get(keys []string) ([]*table.Assignment, bool) {
	out := make([]*table.Assignment, len(keys))
	for i, k := range keys {
		a, ok := sc.getOne(k)
		if !ok {
			return nil, false
		}
		out[i] = a
	}
	return out, true
}

// getOne returns the cached answer for key, and false if it is missing.
func (sc *StoreCache) getOne(key string) (*table.Assignment, bool) {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	if sc.closed {
		return nil, false
	}
	return sc.c.Get(key)
}

// now returns the epoch to pass to put for a lookup starting now.
func (sc *StoreCache) now() uint64 { return sc.epoch.Load() }

// put caches the answers of a lookup that started at epoch.
func (sc *StoreCache) put(keys []string, as []*table.Assignment, epoch uint64) {
	for i, k := range keys {
		sc.putOne(k, as[i], epoch)
	}
}

// putOne caches the answer for key of a lookup that started at epoch.
func (sc *StoreCache) putOne(key string, a *table.Assignment, epoch uint64) {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	if sc.closed {
		return
	}
	sc.c.Set(key, a, 1)
	if sc.epoch.Load() != epoch {
		sc.c.Del(key)
	}
}

// Forget drops keys from the cache; nil drops everything. Ristretto's
// Clear must not run beside other calls, so it holds mu alone.
func (sc *StoreCache) Forget(keys []string) {
	sc.epoch.Add(1)
	if keys == nil {
		sc.mu.Lock()
		defer sc.mu.Unlock()
		if !sc.closed {
			sc.c.Clear()
		}
		return
	}
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	if sc.closed {
		return
	}
	for _, k := range keys {
		sc.c.Del(k)
	}
}

// Close stops the cache's goroutines; it may be called more than once.
func (sc *StoreCache) Close() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if !sc.closed {
		sc.closed = true
		sc.c.Close()
	}
}
