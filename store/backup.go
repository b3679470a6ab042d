package store

import (
	"context"
	"io"
)

// Backuper is a store whose whole state is one file, which it can copy
// consistently while it serves: store/bolt. The API's GET backup uses it.
// A PostgreSQL store is backed up with PostgreSQL's own tools, or with
// `caddy ark store dump`, which reads it from one snapshot.
type Backuper interface {
	// Backup copies the store as of one moment, in its own file format,
	// into a temporary file, and returns that file open at its start,
	// with its size; closing it removes it. The store is held up only
	// while it is copied, never while the copy is read.
	Backup(ctx context.Context) (io.ReadCloser, int64, error)
}
