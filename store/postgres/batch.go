package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"

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
	octx, cancel, err := b.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	keys := make([]string, len(ws))
	for i, w := range ws {
		keys[i] = w.Binding.Key
	}
	for {
		out := make([]*store.Binding, len(ws))
		var changed []string
		err := pgx.BeginFunc(octx, b.pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(octx, pgSQL(b.schema, "SELECT "+pgColumns+" FROM @.bindings WHERE key = ANY($1) ORDER BY key FOR UPDATE"), keys)
			if err != nil {
				return err
			}
			current, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.Binding, error) { return scanBinding(row) })
			if err != nil {
				return err
			}
			byKey := make(map[string]*store.Binding, len(current))
			for _, bd := range current {
				byKey[bd.Key] = bd
			}
			now := pgNow()
			var (
				ks, targets, reasons, bys []string
				statuses                  []int32
				passthrough               []bool
				metas, olds, news         [][]byte
				versions                  []int64
			)
			for i, w := range ws {
				old := byKey[w.Binding.Key]
				if checkWrite(old, w) != nil {
					continue
				}
				nb := w.Binding
				nb.Version, nb.Updated, nb.By = 1, now, w.By
				if old != nil {
					nb.Version = old.Version + 1
				}
				out[i] = &nb
				ks, targets, reasons, bys = append(ks, nb.Key), append(targets, nb.Target), append(reasons, nb.Reason), append(bys, nb.By)
				statuses, passthrough, versions = append(statuses, int32(nb.Status)), append(passthrough, nb.Passthrough), append(versions, int64(nb.Version))
				metas, olds, news = append(metas, pgMeta(nb.Meta)), append(olds, pgJSON(old)), append(news, pgJSON(&nb))
			}
			if len(ks) == 0 {
				return nil
			}
			tag, err := tx.Exec(octx, pgSQL(b.schema, `INSERT INTO @.bindings (`+pgColumns+`)
				SELECT k, t, s, p, m, r, v, $9, w FROM unnest($1::text[], $2::text[], $3::int[], $4::bool[], $5::jsonb[], $6::text[], $7::bigint[], $8::text[]) AS u(k, t, s, p, m, r, v, w)
				ON CONFLICT (key) DO UPDATE SET target = excluded.target, status = excluded.status, passthrough = excluded.passthrough,
					meta = excluded.meta, reason = excluded.reason, version = excluded.version, updated = excluded.updated, by = excluded.by
				WHERE @.bindings.version = excluded.version - 1`),
				ks, targets, statuses, passthrough, metas, reasons, versions, bys, now)
			if err != nil {
				return err
			}
			if tag.RowsAffected() != int64(len(ks)) {
				return errRetry // a key created by another transaction since the SELECT
			}
			if _, err := tx.Exec(octx, pgSQL(b.schema, orderedHistory(7)+`INSERT INTO @.history (time, key, by, old, new, batch)
				SELECT $1, k, w, o, n, $6 FROM ordered, unnest($2::text[], $3::text[], $4::jsonb[], $5::jsonb[]) AS u(k, w, o, n)`),
				append([]any{now, ks, bys, olds, news, int64(batch)}, b.orderedArgs()...)...); err != nil {
				return err
			}
			changed = ks
			return nil
		})
		if errors.Is(err, errRetry) {
			continue
		}
		if err := b.result(octx, err); err != nil {
			return nil, err
		}
		if len(changed) > 0 {
			b.watch.local(changed)
		}
		return out, nil
	}
}

// BatchChanges implements store.Batcher, a slice at a time by sequence.
func (b *Backend) BatchChanges(ctx context.Context, batch uint64, fn func(*store.Change) error) error {
	if batch > math.MaxInt64 {
		return nil
	}
	return store.PageChanges(0, batchChunk, func(after uint64) ([]*store.Change, error) {
		return b.queryChanges(ctx, "WHERE batch = $1 AND seq > $2 ORDER BY seq LIMIT $3", int64(batch), int64(after), batchChunk)
	}, fn)
}

// queryChanges returns the history records that where (the rest of a
// SELECT from @.history after FROM) selects, in one operation.
func (b *Backend) queryChanges(ctx context.Context, where string, args ...any) ([]*store.Change, error) {
	octx, cancel, err := b.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rows, err := b.pool.Query(octx, pgSQL(b.schema, "SELECT "+pgChangeColumns+" FROM @.history "+where), args...)
	var chunk []*store.Change
	if err == nil {
		chunk, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.Change, error) { return scanChange(row) })
	}
	if err := b.result(octx, err); err != nil {
		return nil, err
	}
	return chunk, nil
}

// Interface guards.
var (
	_ store.Batcher = (*Store)(nil)
	_ store.Batcher = (*Backend)(nil)
)
