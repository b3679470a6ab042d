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
type resolutionCache struct {
	c      *ristretto.Cache[string, *resolution]
	closed sync.Once
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
func (rc *resolutionCache) get(core string) (*resolution, bool) {
	res, ok := rc.c.Get(core)
	if ok {
		arkMetrics.cacheHits.Inc()
	} else {
		arkMetrics.cacheMisses.Inc()
	}
	return res, ok
}

func (rc *resolutionCache) set(core string, res *resolution) { rc.c.Set(core, res, 1) }

// close stops the cache's goroutines. It may be called more than once, but
// not while the cache is in use: ristretto's Close races with Get and Set.
func (rc *resolutionCache) close() { rc.closed.Do(rc.c.Close) }
