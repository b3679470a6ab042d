package store

import "context"

// Checker is a store that can say, without a lookup, whether it can
// answer reads and take writes: the readiness check asks it, and asks a
// store that is not one to look up nothing.
type Checker interface {
	// Check returns nil when the store can answer reads and take
	// writes, else an error wrapping ErrUnavailable that says why. A
	// store whose reads may be answered while its writes are not (the
	// PostgreSQL store reading a standby) returns nil when reads are,
	// and says how writes are through Replicated.
	Check(ctx context.Context) error
}
