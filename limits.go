package ark

import (
	"time"
)

// The limits below bound what a configuration or a table can make the
// server allocate or do. They are checked while the Caddyfile is parsed,
// in Validate, before Provision allocates anything, and while a table file
// is read, so an over-long string is refused before it is held whole. The
// README's Limits section lists them.
const (
	// maxCacheSize bounds cache_size. A cache entry costs about
	// cacheEntryBytes when full, allocated in part up front (counters and
	// doorkeeper), for every table swap too.
	maxCacheSize = 1 << 20

	// minWatchInterval is the shortest watch interval: polling more often
	// costs CPU and gains nothing, since a new file version is read only
	// once it has stayed the same for one interval.
	minWatchInterval = 100 * time.Millisecond
)
