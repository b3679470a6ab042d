package bolt

import (
	"runtime/debug"
	"runtime/metrics"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"
)

// releaseAfter is the fewest bindings a write must move (an import merged,
// or failed after staging, a dump loaded) for the store to give back the
// memory it leaves behind (see release).
const releaseAfter = 10000

// release gives back the memory that a big write of n bindings leaves
// behind, once it is done: the pages of the file that bbolt's read-only
// mapping took in (dropMapped; file pages, which count in the process's
// RSS while mapped), then Go's heap that the write grew and no longer
// uses (debug.FreeOSMemory: a garbage collection, then the free memory
// returned to the system, which Go would otherwise keep for minutes).
// What is read again comes back from the page cache as it is needed.
func (b *boltDB) release(n int) {
	var mapped uintptr
	err := b.view(func(tx *bolt.Tx) error { // a read transaction: bbolt does not remap the file meanwhile
		var err error
		mapped, err = dropMapped(tx)
		return err
	})
	before := heapReleased()
	debug.FreeOSMemory()
	b.logger.Debug("gave back the memory of a large write",
		zap.String("path", b.path), zap.Int("bindings", n), zap.Uint64("mapped_bytes_dropped", uint64(mapped)),
		zap.Uint64("heap_bytes_returned", heapReleased()-min(before, heapReleased())), zap.NamedError("mapped_error", err))
}

// heapReleased is how much of Go's heap is returned to the system.
func heapReleased() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
