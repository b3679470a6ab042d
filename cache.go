package ark

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/caddy-ark/caddy-ark/internal/lfu"
	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/dgraph-io/ristretto/v2"
)

// defaultCacheSize is how many resolutions the cache holds by default.
const defaultCacheSize = 10_000

// resolutionCache holds resolutions by raw request core. Ristretto's TinyLFU
// admission keeps frequently requested identifiers in it even when a flood of
// one-off requests (random or unknown identifiers) passes through.
//
// It may be closed at any time, even while requests use it: ristretto's
// Close is not safe while Get and Set run, so Get and Set hold mu shared and
// Close holds it alone; once closed, Get misses and Set does nothing.
//
// Only cores seen twice recently are offered to ristretto: seen is a
// doorkeeper, one hash per slot, in front of ristretto's own. Offering a
// resolution costs ristretto admission and eviction work on its goroutine,
// and under a stream of spellings that never come back (random traffic, a
// flood of unknown identifiers) that work cost more than resolving again
// (BENCHMARKS.md). A core that does come back is cached on its second
// request.
type resolutionCache struct {
	c      *ristretto.Cache[string, *resolve.Resolution]
	seen   []atomic.Uint64 // the hash of the last core offered in each slot
	seed   maphash.Seed
	mu     sync.RWMutex
	closed bool
}

// newResolutionCache returns a cache for size resolutions.
func newResolutionCache(size int) (*resolutionCache, error) {
	c, err := lfu.New[*resolve.Resolution](size)
	if err != nil {
		return nil, err
	}
	slots := 1
	for slots < size {
		slots *= 2
	}
	return &resolutionCache{c: c, seen: make([]atomic.Uint64, slots), seed: maphash.MakeSeed()}, nil
}

// Get returns the cached resolution of core, counting the hit or miss.
func (rc *resolutionCache) Get(core string) (res *resolve.Resolution, ok bool) {
	rc.mu.RLock()
	if !rc.closed {
		res, ok = rc.c.Get(core)
	}
	rc.mu.RUnlock()
	if ok {
		metrics.Counters.CacheHits.Inc()
	} else {
		metrics.Counters.CacheMisses.Inc()
	}
	return res, ok
}

// Set caches the resolution of core if core was offered recently too,
// unless the cache is closed.
func (rc *resolutionCache) Set(core string, res *resolve.Resolution) {
	h := maphash.String(rc.seed, core)
	if rc.seen[h&uint64(len(rc.seen)-1)].Swap(h) != h {
		return // the first time: it may never come back
	}
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	if !rc.closed {
		rc.c.Set(core, res, 1)
	}
}

// Close stops the cache's goroutines. It may be called more than once, and
// while the cache is in use.
func (rc *resolutionCache) Close() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if !rc.closed {
		rc.closed = true
		rc.c.Close()
	}
}
