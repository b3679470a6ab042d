package table

import "fmt"

// The limits on what one entry may hold, wherever it comes from (a table
// file, the Caddyfile, the API, an import). A table file's reader checks
// them while reading, so an over-long string is refused before it is held
// whole.
const (
	// MaxIdentifierLength bounds max_length, in code points.
	MaxIdentifierLength = 8192

	// MaxIDBytes bounds an entry's id: 4 bytes for each of the longest
	// max_length's code points.
	MaxIDBytes = 4 * MaxIdentifierLength

	// MaxTargetBytes bounds an entry's target.
	MaxTargetBytes = 8192

	// MaxMetaKeys bounds how many metadata keys an entry has.
	MaxMetaKeys = 64

	// MaxMetaKeyBytes bounds a metadata key.
	MaxMetaKeyBytes = 256

	// MaxMetaValueBytes bounds a metadata value.
	MaxMetaValueBytes = 16 << 10
)

// checkEntryLimits checks e against the limits on ids, targets and
// metadata, for entries that were not read from a table file (which checks
// them while reading).
func checkEntryLimits(e *Entry) error {
	switch {
	case len(e.ID) > MaxIDBytes:
		return fmt.Errorf("id: longer than %d bytes", MaxIDBytes)
	case len(e.Target) > MaxTargetBytes:
		return fmt.Errorf("target: longer than %d bytes", MaxTargetBytes)
	case len(e.Meta) > MaxMetaKeys:
		return fmt.Errorf("meta: more than %d keys", MaxMetaKeys)
	}
	for k, v := range e.Meta {
		if len(k) > MaxMetaKeyBytes {
			return fmt.Errorf("meta: a key is longer than %d bytes", MaxMetaKeyBytes)
		}
		if len(v) > MaxMetaValueBytes {
			return fmt.Errorf("meta %q: value longer than %d bytes", k, MaxMetaValueBytes)
		}
	}
	return nil
}
