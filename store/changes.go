package store

import (
	"context"
	"time"
)

// Historian is a store that reads its history across identifiers, in
// sequence order: the API's GET changes. Both backends implement it.
type Historian interface {
	// Changes calls fn with the history records that q selects, in
	// sequence order, until fn returns an error, which it then returns,
	// or the history ends. A backend reads q.Want records at a time and
	// holds no transaction or connection while fn runs.
	Changes(ctx context.Context, q ChangesQuery, fn func(*Change) error) error
}

// ChangesQuery selects history records for Historian.Changes.
type ChangesQuery struct {
	// Records after this sequence number.
	After uint64

	// When After is 0: records from the first one made at or after
	// Since. Times follow the sequence as far as the clocks of the
	// writers do: a backend finds where Since falls by the times of the
	// records, taking them to grow with the sequence. The zero time
	// selects every record.
	Since time.Time

	// How many records the caller expects to take; a backend reads that
	// many at a time, at least one. 0 means EachBatchCount.
	Want int
}
