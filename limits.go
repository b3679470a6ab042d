package ark

import (
	"fmt"
	"strconv"
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

	// maxMaxLength bounds max_length, in code points.
	maxMaxLength = 8192

	// minWatchInterval is the shortest watch interval: polling more often
	// costs CPU and gains nothing, since a new file version is read only
	// once it has stayed the same for one interval.
	minWatchInterval = 100 * time.Millisecond

	// maxIDBytes bounds an entry's id: 4 bytes for each of the longest
	// max_length's code points.
	maxIDBytes = 4 * maxMaxLength

	// maxTargetBytes bounds an entry's target.
	maxTargetBytes = 8192

	// maxMetaKeys bounds how many metadata keys an entry has.
	maxMetaKeys = 64

	// maxMetaKeyBytes bounds a metadata key.
	maxMetaKeyBytes = 256

	// maxMetaValueBytes bounds a metadata value.
	maxMetaValueBytes = 16 << 10
)

// checkEntryLimits checks e against the limits on ids, targets and
// metadata, for entries that were not read from a table file (which checks
// them while reading).
func checkEntryLimits(e *Entry) error {
	switch {
	case len(e.ID) > maxIDBytes:
		return fmt.Errorf("id: longer than %d bytes", maxIDBytes)
	case len(e.Target) > maxTargetBytes:
		return fmt.Errorf("target: longer than %d bytes", maxTargetBytes)
	case len(e.Meta) > maxMetaKeys:
		return fmt.Errorf("meta: more than %d keys", maxMetaKeys)
	}
	for k, v := range e.Meta {
		if len(k) > maxMetaKeyBytes {
			return fmt.Errorf("meta: a key is longer than %d bytes", maxMetaKeyBytes)
		}
		if len(v) > maxMetaValueBytes {
			return fmt.Errorf("meta %q: value longer than %d bytes", k, maxMetaValueBytes)
		}
	}
	return nil
}

// formatBytes writes n bytes in the largest binary unit that divides it.
func formatBytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
