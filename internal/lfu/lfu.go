// Package lfu builds the ristretto caches (TinyLFU admission) that the
// handler keeps: of resolutions, of store assignments, of Link headers,
// all sized alike.
package lfu

import "github.com/dgraph-io/ristretto/v2"

// New returns a ristretto cache of size entries, each costing 1, with the
// usual ten counters an entry.
func New[V any](size int) (*ristretto.Cache[string, V], error) {
	return ristretto.NewCache(&ristretto.Config[string, V]{
		NumCounters:        int64(size) * 10,
		MaxCost:            int64(size),
		BufferItems:        64,
		IgnoreInternalCost: true,
	})
}
