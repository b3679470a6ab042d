package store

import "context"

// Batcher is a store that makes many changes as parts of one batch: a
// mass retarget through the API, or an undo, applied a part at a time
// (OpenBatch), whose changes are recorded with the batch's number so that
// it can be undone. Both backends implement it.
type Batcher interface {
	// ApplyBatch makes the writes ws, of distinct keys, in one
	// transaction, each as Apply would and with a history record naming
	// batch. A write whose precondition fails, or whose key is
	// withdrawn, is not made: its place in the result is nil. The others
	// are all made, or none (an error). Watch hears of the keys changed
	// before it returns.
	ApplyBatch(ctx context.Context, batch uint64, ws []Write) ([]*Binding, error)

	// BatchChanges calls fn with the history records of batch, in
	// sequence order, until fn returns an error, which it then returns.
	// A backend reads them a slice at a time and holds no transaction or
	// connection while fn runs.
	BatchChanges(ctx context.Context, batch uint64, fn func(*Change) error) error

	// OpenBatch begins batch as one change made in parts, a
	// BatchWriter: what its Apply calls make is kept only once Commit
	// returns. A batch that does not commit (Abort, an error, a process
	// that stops or is killed) leaves none of it: each binding it changed
	// gets back what it had, and its history records are gone, unless
	// someone else changed the binding after it (that change was
	// acknowledged, and stays, with the batch's record before it).
	// While it runs, readers may see its parts as they are made, or
	// nothing of it until it commits, as the backend does it.
	OpenBatch(ctx context.Context, batch uint64) (BatchWriter, error)
}

// BatchWriter makes a batch opened by OpenBatch. Its methods are called
// one at a time, and ctx is the batch's: once it is done, the batch
// cannot commit.
type BatchWriter interface {
	// Apply makes the writes ws, of distinct keys not written before in
	// the batch, as ApplyBatch does, as part of the batch.
	Apply(ctx context.Context, ws []Write) ([]*Binding, error)

	// Get returns the binding of key as the batch sees it, nil for none.
	Get(ctx context.Context, key string) (*Binding, error)

	// Commit keeps what the batch made, durably, all at once. Watch has
	// heard of the keys changed when it returns.
	Commit(ctx context.Context) error

	// Abort gives back what the batch made, if it has not committed.
	Abort() error
}

// BatchCounter is the counter (see Store.Count) that numbers batches:
// the next batch is its value plus one. Minters' counters are named
// "mint:<shoulder>" and "issued:<shoulder>", never so.
const BatchCounter = "batches"

// NewBatch returns the number of a new batch of s.
func NewBatch(ctx context.Context, s Store) (uint64, error) {
	n, err := s.Count(ctx, BatchCounter, 1)
	return n + 1, err
}

// BatchExists reports whether batch has been handed out by NewBatch.
func BatchExists(ctx context.Context, s Store, batch uint64) (bool, error) {
	n, err := s.Count(ctx, BatchCounter, 0)
	return batch >= 1 && batch <= n, err
}
