package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
)

// pgChangeColumns are the columns of a history record, in the order
// scanChange reads.
const pgChangeColumns = "seq, time, key, by, old, new, coalesce(batch, 0)"

// scanChange reads one row of pgChangeColumns.
func scanChange(row pgx.Row) (*store.Change, error) {
	c := new(store.Change)
	var batch int64
	if err := row.Scan(&c.Seq, &c.Time, &c.Key, &c.By, &c.Old, &c.New, &batch); err != nil {
		return nil, err
	}
	c.Time, c.Batch = c.Time.UTC(), uint64(batch)
	return c, nil
}

// batchChunk is the most history records BatchChanges reads at a time.
const batchChunk = 1000

// ApplyBatch implements store.Batcher in one transaction that locks the
// rows of the keys, in key order (two batches over the same keys wait
// for each other rather than deadlock). A key created by another
// transaction since the rows were read starts it over.
func (b *Backend) ApplyBatch(ctx context.Context, batch uint64, ws []store.Write) ([]*store.Binding, error) {
	if batch > math.MaxInt64 {
		return nil, fmt.Errorf("batch %d: more than a PostgreSQL bigint", batch)
	}
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	for {
		var (
			out     []*store.Binding
			changed []string
		)
		err := pgx.BeginFunc(octx, b.pool, func(tx pgx.Tx) error {
			var err error
			out, changed, err = b.applyWrites(octx, tx, ws, func(h *batchHistory) error {
				_, err := tx.Exec(octx, pgSQL(b.schema, orderedHistory(7)+`INSERT INTO @.history (time, key, by, old, new, batch)
					SELECT $1, k, w, o, n, $6 FROM ordered, unnest($2::text[], $3::text[], $4::jsonb[], $5::jsonb[]) AS u(k, w, o, n)`),
					append([]any{h.now, h.keys, h.bys, h.olds, h.news, int64(batch)}, b.orderedArgs()...)...)
				return err
			})
			return err
		})
		if errors.Is(err, errRetry) {
			continue
		}
		if err := b.pool.result(octx, err); err != nil {
			return nil, err
		}
		if len(changed) > 0 {
			b.watch.local(changed)
		}
		return out, nil
	}
}

// batchHistory is what the history records of a part of a batch hold:
// the time, and for each key changed, who changed it and its bindings
// before and after (JSON).
type batchHistory struct {
	now        time.Time
	keys, bys  []string
	olds, news [][]byte
}

// applyWrites makes ws within tx, locking the rows of the keys in key
// order, and records their history with record. It returns the bindings
// as stored (nil where a precondition failed or the key is withdrawn)
// and the keys changed; errRetry when a key was created by another
// transaction since the rows were read.
func (b *Backend) applyWrites(ctx context.Context, tx pgx.Tx, ws []store.Write, record func(*batchHistory) error) ([]*store.Binding, []string, error) {
	keys := make([]string, len(ws))
	for i, w := range ws {
		keys[i] = w.Binding.Key
	}
	rows, err := tx.Query(ctx, pgSQL(b.schema, "SELECT "+pgColumns+" FROM @.bindings WHERE key = ANY($1) ORDER BY key FOR UPDATE"), keys)
	if err != nil {
		return nil, nil, err
	}
	current, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.Binding, error) { return scanBinding(row) })
	if err != nil {
		return nil, nil, err
	}
	byKey := make(map[string]*store.Binding, len(current))
	for _, bd := range current {
		byKey[bd.Key] = bd
	}
	out := make([]*store.Binding, len(ws))
	h := &batchHistory{now: pgNow()}
	var (
		targets, reasons []string
		statuses         []int32
		passthrough      []bool
		metas            [][]byte
		versions         []int64
	)
	for i, w := range ws {
		old := byKey[w.Binding.Key]
		if checkWrite(old, w) != nil {
			continue
		}
		nb := w.Binding
		nb.Version, nb.Updated, nb.By = 1, h.now, w.By
		if old != nil {
			nb.Version = old.Version + 1
		}
		out[i] = &nb
		h.keys, targets, reasons, h.bys = append(h.keys, nb.Key), append(targets, nb.Target), append(reasons, nb.Reason), append(h.bys, nb.By)
		statuses, passthrough, versions = append(statuses, int32(nb.Status)), append(passthrough, nb.Passthrough), append(versions, int64(nb.Version))
		metas, h.olds, h.news = append(metas, pgMeta(nb.Meta)), append(h.olds, pgJSON(old)), append(h.news, pgJSON(&nb))
	}
	if len(h.keys) == 0 {
		return out, nil, nil
	}
	tag, err := tx.Exec(ctx, pgSQL(b.schema, `INSERT INTO @.bindings (`+pgColumns+`)
		SELECT k, t, s, p, m, r, v, $9, w FROM unnest($1::text[], $2::text[], $3::int[], $4::bool[], $5::jsonb[], $6::text[], $7::bigint[], $8::text[]) AS u(k, t, s, p, m, r, v, w)
		ON CONFLICT (key) DO UPDATE SET target = excluded.target, status = excluded.status, passthrough = excluded.passthrough,
			meta = excluded.meta, reason = excluded.reason, version = excluded.version, updated = excluded.updated, by = excluded.by
		WHERE @.bindings.version = excluded.version - 1`),
		h.keys, targets, statuses, passthrough, metas, reasons, versions, h.bys, h.now)
	if err != nil {
		return nil, nil, err
	}
	if tag.RowsAffected() != int64(len(h.keys)) {
		return nil, nil, errRetry // a key created by another transaction since the SELECT
	}
	if err := record(h); err != nil {
		return nil, nil, err
	}
	return out, h.keys, nil
}

// BatchChanges implements store.Batcher, a slice at a time by sequence.
func (b *Backend) BatchChanges(ctx context.Context, batch uint64, fn func(*store.Change) error) error {
	if batch > math.MaxInt64 {
		return nil
	}
	return store.PageChanges(0, batchChunk, func(after uint64) ([]*store.Change, error) {
		return b.queryChanges(ctx, b.pool, "WHERE batch = $1 AND seq > $2 ORDER BY seq LIMIT $3", int64(batch), int64(after), batchChunk)
	}, fn)
}

// queryChanges returns the history records that where (the rest of a
// SELECT from @.history after FROM) selects, in one operation on pool.
func (b *Backend) queryChanges(ctx context.Context, pool *pgPool, where string, args ...any) ([]*store.Change, error) {
	octx, cancel, err := pool.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rows, err := pool.Query(octx, pgSQL(b.schema, "SELECT "+pgChangeColumns+" FROM @.history "+where), args...)
	var chunk []*store.Change
	if err == nil {
		chunk, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.Change, error) { return scanChange(row) })
	}
	if err := pool.result(octx, err); err != nil {
		return nil, err
	}
	return chunk, nil
}

// Interface guards.
var (
	_ store.Batcher = (*Store)(nil)
	_ store.Batcher = (*Backend)(nil)
)
