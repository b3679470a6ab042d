package store

import "context"

// Batcher is a store that makes many changes as parts of one batch: a
// mass retarget through the API, applied a transaction at a time, whose
// changes are recorded with the batch's number so that it can be undone.
// Both backends implement it.
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
