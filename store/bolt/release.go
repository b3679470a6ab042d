package bolt

import (
	"runtime/debug"
	"runtime/metrics"
	"time"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"
)

// releaseAfter is the fewest bindings a write must move (an import merged,
// or failed after staging, a dump loaded; or writes of one binding or a
// few, such as bulk lines and mints, in a row) for the store to give back
// the memory it leaves behind (see release).
const releaseAfter = 10000

// releaseQuiet is how long writes of a binding or a few at a time must
// pause, after releaseAfter of them, for the store to give back the
// memory they took.
const releaseQuiet = 2 * time.Second

// wrote counts n bindings written by Apply or Reserve. Past releaseAfter
// of them, the memory they took is given back once writes have paused for
// releaseQuiet: a bulk request or a run of mints has ended.
func (b *boltDB) wrote(n int) {
	if b.written.Add(int64(n)) >= releaseAfter && b.quiet != nil {
		b.quiet.Reset(releaseQuiet)
	}
}

// releaseWritten gives back the memory of the writes counted by wrote.
func (b *boltDB) releaseWritten() {
	if n := b.written.Swap(0); n >= releaseAfter && b.closing.Err() == nil {
		b.release(int(n))
	}
}

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
