package ark

import (
	"sync"

	"github.com/dgraph-io/ristretto/v2"
)

// defaultCacheSize is how many resolutions the cache holds by default.
const defaultCacheSize = 100_000

// resolutionCache holds resolutions by raw request core. Ristretto's TinyLFU
// admission keeps frequently requested identifiers in it even when a flood of
// one-off requests (random or unknown identifiers) passes through.
//
// It may be closed at any time, even while requests use it: ristretto's
// Close is not safe while Get and Set run, so get and set hold mu shared and
// close holds it alone; once closed, get misses and set does nothing.
type resolutionCache struct {
	c      *ristretto.Cache[string, *resolution]
	mu     sync.RWMutex
	closed bool
}

// newResolutionCache returns a cache for size resolutions.
func newResolutionCache(size int) (*resolutionCache, error) {
	c, err := ristretto.NewCache(&ristretto.Config[string, *resolution]{
		NumCounters:        int64(size) * 10,
		MaxCost:            int64(size),
		BufferItems:        64,
		IgnoreInternalCost: true,
	})
	if err != nil {
		return nil, err
	}
	return &resolutionCache{c: c}, nil
}

// get returns the cached resolution of core, counting the hit or miss.
func (rc *resolutionCache) get(core string) (res *resolution, ok bool) {
	rc.mu.RLock()
	if !rc.closed {
		res, ok = rc.c.Get(core)
	}
	rc.mu.RUnlock()
	if ok {
		arkMetrics.cacheHits.Inc()
	} else {
		arkMetrics.cacheMisses.Inc()
	}
	return res, ok
}

// set caches the resolution of core, unless the cache is closed.
func (rc *resolutionCache) set(core string, res *resolution) {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	if !rc.closed {
		rc.c.Set(core, res, 1)
	}
}

// close stops the cache's goroutines. It may be called more than once, and
// while the cache is in use.
func (rc *resolutionCache) close() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if !rc.closed {
		rc.closed = true
		rc.c.Close()
	}
}
