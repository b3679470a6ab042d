package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
)

// pgBatch is a batch opened by OpenBatch: one transaction, which its parts
// write into, each within a savepoint, and which Commit commits. Its
// history records wait in a temporary table until Commit numbers them,
// under the history's lock (see orderedHistory): the lock is held only
// while they are inserted, not while the batch runs, so other writers
// go on meanwhile (but for the keys the batch has written, whose rows it
// holds until it ends). A batch that does not commit, whatever stops it
// (a process killed, a connection lost), is rolled back by PostgreSQL.
type pgBatch struct {
	mu    sync.Mutex // held while the transaction is used, and to end it
	b     *Backend
	batch int64
	tx    pgx.Tx
	ctx   context.Context    // the batch's: done when the store closes
	stop  context.CancelFunc // ends ctx
	keys  []string           // the keys changed, up to pgWatchMax+1
	many  bool               // more than pgWatchMax keys changed
	done  bool
}

// OpenBatch implements store.Batcher. The batch is not bounded by the
// store's timeout (each of its parts is), but ends, rolling back, when
// ctx is done or the store closes.
func (b *Backend) OpenBatch(ctx context.Context, batch uint64) (store.BatchWriter, error) {
	if batch > math.MaxInt64 {
		return nil, fmt.Errorf("batch %d: more than a PostgreSQL bigint", batch)
	}
	if err := b.pool.allow(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &pgBatch{b: b, batch: int64(batch), ctx: ctx}
	// A store that closes rolls back the batch and lets go of its
	// connection, which closing the pool waits for.
	stopClosing := context.AfterFunc(b.closing, func() {
		cancel()
		_ = w.Abort()
	})
	w.stop = func() { stopClosing(); cancel() }
	octx, done := context.WithTimeout(ctx, b.timeout)
	defer done()
	err := b.ready(octx)
	if err == nil {
		// The transaction lives on ctx: pgx ends it, rolling back, when
		// ctx is done.
		w.tx, err = b.pool.Begin(ctx)
	}
	if err == nil {
		_, err = w.tx.Exec(octx, `CREATE TEMP TABLE ark_batch (n bigserial, time timestamptz, key text, by text, old jsonb, new jsonb) ON COMMIT DROP`)
	}
	if err := b.pool.result(octx, err); err != nil {
		if w.tx != nil {
			_ = w.rollback()
		}
		w.stop()
		return nil, err
	}
	return w, nil
}

// Apply implements store.BatchWriter, in a savepoint of the batch's
// transaction, bounded by the store's timeout.
func (w *pgBatch) Apply(ctx context.Context, ws []store.Write) ([]*store.Binding, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil, errBatchOver
	}
	octx, cancel := w.op(ctx)
	defer cancel()
	for {
		var (
			out     []*store.Binding
			changed []string
		)
		err := pgx.BeginFunc(octx, w.tx, func(sp pgx.Tx) error {
			var err error
			out, changed, err = w.b.applyWrites(octx, sp, ws, func(h *batchHistory) error {
				_, err := sp.Exec(octx, `INSERT INTO ark_batch (time, key, by, old, new)
					SELECT $1, k, w, o, n FROM unnest($2::text[], $3::text[], $4::jsonb[], $5::jsonb[]) AS u(k, w, o, n)`,
					h.now, h.keys, h.bys, h.olds, h.news)
				return err
			})
			return err
		})
		if errors.Is(err, errRetry) {
			continue
		}
		if err := w.b.pool.result(octx, err); err != nil {
			return nil, err
		}
		if !w.many {
			w.keys = append(w.keys, changed...)
			w.many = len(w.keys) > pgWatchMax
		}
		return out, nil
	}
}

// op returns the context of one operation of the batch: ctx, bounded by
// the store's timeout, and done when the batch's is.
func (w *pgBatch) op(ctx context.Context) (context.Context, context.CancelFunc) {
	octx, cancel := context.WithTimeout(ctx, w.b.timeout)
	stop := context.AfterFunc(w.ctx, cancel)
	return octx, func() { stop(); cancel() }
}

// Get implements store.BatchWriter.
func (w *pgBatch) Get(ctx context.Context, key string) (*store.Binding, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil, errBatchOver
	}
	octx, cancel := w.op(ctx)
	defer cancel()
	bd, err := scanBinding(w.tx.QueryRow(octx, pgSQL(w.b.schema, "SELECT "+pgColumns+" FROM @.bindings WHERE key = $1"), key))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err := w.b.pool.result(octx, err); err != nil {
		return nil, err
	}
	return bd, nil
}

// Commit implements store.BatchWriter: the history records are numbered
// and the transaction commits, telling the other nodes.
func (w *pgBatch) Commit(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errBatchOver
	}
	w.done = true
	defer w.stop()
	ctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(w.ctx, cancel)()
	_, err := w.tx.Exec(ctx, pgSQL(w.b.schema, orderedHistory(2)+`INSERT INTO @.history (time, key, by, old, new, batch)
		SELECT a.time, a.key, a.by, a.old, a.new, $1 FROM ordered, ark_batch a ORDER BY a.n`),
		append([]any{w.batch}, w.b.orderedArgs()...)...)
	if err == nil {
		err = w.tx.Commit(ctx)
	} else {
		_ = w.rollback()
	}
	if err := w.b.pool.result(ctx, err); err != nil {
		return err
	}
	switch {
	case w.many:
		w.b.watch.local(nil)
	case len(w.keys) > 0:
		w.b.watch.local(w.keys)
	}
	return nil
}

// Abort implements store.BatchWriter.
func (w *pgBatch) Abort() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	w.done = true
	defer w.stop()
	return w.rollback()
}

// rollback rolls back the batch's transaction, waiting for the server at
// most the store's timeout (pgx closes the connection then).
func (w *pgBatch) rollback() error {
	ctx, cancel := context.WithTimeout(context.Background(), w.b.timeout)
	defer cancel()
	return w.tx.Rollback(ctx)
}

// errBatchOver is the error of a batch used after it committed or was
// rolled back.
var errBatchOver = fmt.Errorf("%w: the batch is over: it committed, or was rolled back (the store closed)", store.ErrUnavailable)
