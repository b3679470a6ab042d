package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
)

// pgColumns are the columns of a binding, in the order scanBinding reads.
const pgColumns = "key, target, status, passthrough, meta, reason, version, updated, by"

// scanBinding reads one row of pgColumns.
func scanBinding(row pgx.Row) (*store.Binding, error) {
	var b store.Binding
	if err := row.Scan(&b.Key, &b.Target, &b.Status, &b.Passthrough, &b.Meta, &b.Reason, &b.Version, &b.Updated, &b.By); err != nil {
		return nil, err
	}
	b.Updated = b.Updated.UTC()
	return &b, nil
}

// pgNow is the time of a change, as PostgreSQL keeps it (microseconds),
// so that what a write returns is what a read finds.
func pgNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// pgMeta is the jsonb value of a binding's metadata: NULL when it has none.
func pgMeta(meta map[string]string) []byte {
	if len(meta) == 0 {
		return nil
	}
	j, _ := json.Marshal(meta)
	return j
}

// pgJSON is a binding as a history record keeps it.
func pgJSON(b *store.Binding) []byte {
	if b == nil {
		return nil
	}
	j, _ := json.Marshal(b)
	return j
}

// Lookup reads the bindings of keys in one query.
func (b *Backend) Lookup(ctx context.Context, keys []string) ([]*store.Binding, error) {
	octx, cancel, err := b.reads.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rows, err := b.reads.Query(octx, pgSQL(b.schema, "SELECT "+pgColumns+" FROM @.bindings WHERE key = ANY($1)"), keys)
	if err != nil {
		return nil, b.reads.result(octx, err)
	}
	found := make(map[string]*store.Binding, len(keys))
	for rows.Next() {
		bd, err := scanBinding(rows)
		if err != nil {
			rows.Close()
			return nil, b.reads.result(octx, err)
		}
		found[bd.Key] = bd
	}
	if err := b.reads.result(octx, rows.Err()); err != nil {
		return nil, err
	}
	out := make([]*store.Binding, len(keys))
	for i, k := range keys {
		out[i] = found[k]
	}
	return out, nil
}

// Get reads a binding and its history from one snapshot.
func (b *Backend) Get(ctx context.Context, key string) (*store.Binding, []store.Change, error) {
	octx, cancel, err := b.reads.op(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer cancel()
	var (
		bd      *store.Binding
		history []store.Change
	)
	err = pgx.BeginTxFunc(octx, b.reads, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		bd, err = scanBinding(tx.QueryRow(octx, pgSQL(b.schema, "SELECT "+pgColumns+" FROM @.bindings WHERE key = $1"), key))
		if err != nil {
			return err
		}
		rows, err := tx.Query(octx, pgSQL(b.schema, "SELECT "+pgChangeColumns+" FROM @.history WHERE key = $1 ORDER BY seq"), key)
		if err != nil {
			return err
		}
		history, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Change, error) {
			c, err := scanChange(row)
			if err != nil {
				return store.Change{}, err
			}
			return *c, nil
		})
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, store.ErrNotFound
	}
	if err := b.reads.result(octx, err); err != nil {
		return nil, nil, err
	}
	return bd, history, nil
}

// Apply makes one change in a transaction that locks the key's row. Two
// nodes creating the same key at once: the one whose insert finds the
// row taken starts over and sees it.
func (b *Backend) Apply(ctx context.Context, w store.Write) (*store.Binding, error) {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	for {
		var nb store.Binding
		err := pgx.BeginFunc(octx, b.pool, func(tx pgx.Tx) error {
			old, err := scanBinding(tx.QueryRow(octx, pgSQL(b.schema, "SELECT "+pgColumns+" FROM @.bindings WHERE key = $1 FOR UPDATE"), w.Binding.Key))
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				old = nil
			case err != nil:
				return err
			}
			if err := checkWrite(old, w); err != nil {
				return err
			}
			nb = w.Binding
			nb.Version, nb.Updated, nb.By = 1, pgNow(), w.By
			if old != nil {
				nb.Version = old.Version + 1
			}
			tag, err := tx.Exec(octx, pgSQL(b.schema, `INSERT INTO @.bindings (`+pgColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
				ON CONFLICT (key) DO UPDATE SET target = $2, status = $3, passthrough = $4, meta = $5, reason = $6, version = $7, updated = $8, by = $9
				WHERE @.bindings.version = $7 - 1`),
				nb.Key, nb.Target, nb.Status, nb.Passthrough, pgMeta(nb.Meta), nb.Reason, nb.Version, nb.Updated, nb.By)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return errRetry // created by another transaction since the SELECT
			}
			return b.record(octx, tx, nb.Updated, nb.By, []string{nb.Key}, [][]byte{pgJSON(old)}, [][]byte{pgJSON(&nb)})
		})
		if errors.Is(err, errRetry) {
			continue
		}
		if err := b.pool.result(octx, err); err != nil {
			return nil, err
		}
		b.watch.local([]string{nb.Key})
		return &nb, nil
	}
}

// errRetry rolls back a transaction that is to start over.
var errRetry = errors.New("retry")

// checkWrite checks w's precondition against the binding it changes.
func checkWrite(old *store.Binding, w store.Write) error {
	switch {
	case old != nil && old.State() == store.StateWithdrawn:
		return store.ErrWithdrawn
	case old != nil && w.Create:
		return store.ErrPrecondition
	case w.IfVersion > 0 && (old == nil || old.Version != w.IfVersion):
		return store.ErrPrecondition
	}
	return nil
}

// record adds the history records of changes to keys and tells the
// listening nodes, within tx, as its last statement (see orderedHistory).
func (b *Backend) record(ctx context.Context, tx pgx.Tx, when time.Time, by string, keys []string, olds, news [][]byte) error {
	_, err := tx.Exec(ctx, pgSQL(b.schema, orderedHistory(6)+`INSERT INTO @.history (time, key, by, old, new)
		SELECT $1, k, $2, o, n FROM ordered, unnest($3::text[], $4::jsonb[], $5::jsonb[]) AS u(k, o, n)`),
		append([]any{when, by, keys, olds, news}, b.orderedArgs()...)...)
	return err
}

// Reserve inserts the new bindings in one statement that skips the keys
// already taken (by another node too: the primary key decides).
func (b *Backend) Reserve(ctx context.Context, bs []store.Binding, by string) ([]bool, error) {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	now := pgNow()
	var (
		keys, targets, reasons []string
		statuses               []int32
		passthrough            []bool
		metas                  [][]byte
	)
	for _, bd := range bs {
		keys = append(keys, bd.Key)
		targets = append(targets, bd.Target)
		statuses = append(statuses, int32(bd.Status))
		passthrough = append(passthrough, bd.Passthrough)
		metas = append(metas, pgMeta(bd.Meta))
		reasons = append(reasons, bd.Reason)
	}
	stored := make([]bool, len(bs))
	var storedKeys []string
	err = pgx.BeginFunc(octx, b.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(octx, pgSQL(b.schema, `INSERT INTO @.bindings (`+pgColumns+`)
			SELECT k, t, s, p, m, r, 1, $7, $8 FROM unnest($1::text[], $2::text[], $3::int[], $4::bool[], $5::jsonb[], $6::text[]) AS u(k, t, s, p, m, r)
			ON CONFLICT (key) DO NOTHING RETURNING key`),
			keys, targets, statuses, passthrough, metas, reasons, now, by)
		if err != nil {
			return err
		}
		storedKeys, err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		inserted := make(map[string]bool, len(storedKeys))
		for _, k := range storedKeys {
			inserted[k] = true
		}
		var olds, news [][]byte
		for i, bd := range bs {
			if !inserted[bd.Key] {
				continue
			}
			inserted[bd.Key] = false // a key given twice is stored once
			stored[i] = true
			bd.Version, bd.Updated, bd.By = 1, now, by
			olds, news = append(olds, nil), append(news, pgJSON(&bd))
		}
		if len(storedKeys) == 0 {
			return nil
		}
		return b.record(octx, tx, now, by, storedKeys, olds, news)
	})
	if err := b.pool.result(octx, err); err != nil {
		return nil, err
	}
	if len(storedKeys) > 0 {
		b.watch.local(storedKeys)
	}
	return stored, nil
}

// Count adds n to a counter in one statement.
func (b *Backend) Count(ctx context.Context, name string, n uint64) (uint64, error) {
	if n > math.MaxInt64 {
		return 0, fmt.Errorf("counter %s: cannot add %d: more than a PostgreSQL bigint", name, n)
	}
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return 0, err
	}
	defer cancel()
	var before int64
	err = b.pool.QueryRow(octx, pgSQL(b.schema, `INSERT INTO @.counters AS c (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET value = c.value + $2 RETURNING value - $2`), name, int64(n)).Scan(&before)
	if err := b.pool.result(octx, err); err != nil {
		return 0, err
	}
	return uint64(before), nil
}

// Each reads every binding in key order, a batch at a time (keyset
// pagination on the key), and calls fn between batches, holding no pooled
// connection while fn writes to a client that may read slowly: a few slow
// exports would otherwise take every connection, and lookups would get
// 503. It is not bounded by the store's timeout.
func (b *Backend) Each(ctx context.Context, fn func(*store.Binding) error) error {
	if err := b.reads.allow(); err != nil {
		return err
	}
	if err := b.reads.ready(ctx); err != nil {
		return err
	}
	for after := ""; ; {
		rows, err := b.reads.Query(ctx, pgSQL(b.schema, "SELECT "+pgColumns+" FROM @.bindings WHERE key > $1 ORDER BY key LIMIT $2"),
			after, store.EachBatchCount)
		if err != nil {
			return b.reads.result(ctx, err)
		}
		batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.Binding, error) { return scanBinding(row) })
		if err != nil {
			return b.reads.result(ctx, err)
		}
		b.reads.setUp(true, nil)
		for _, bd := range batch {
			if err := fn(bd); err != nil {
				return err
			}
		}
		if len(batch) < store.EachBatchCount {
			return nil
		}
		after = batch[len(batch)-1].Key
	}
}
