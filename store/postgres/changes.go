package postgres

import (
	"context"
	"errors"
	"math"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
)

// Changes implements store.Historian, a query of q.Want records at a
// time by sequence. A time is found through the index on the records'
// times: the sequence of the earliest record made at or after it.
func (b *Backend) Changes(ctx context.Context, q store.ChangesQuery, fn func(*store.Change) error) error {
	if q.After > math.MaxInt64 {
		return nil
	}
	want := q.Want
	if want <= 0 {
		want = store.EachBatchCount
	}
	after := int64(q.After)
	if q.After == 0 && !q.Since.IsZero() {
		octx, cancel, err := b.reads.op(ctx)
		if err != nil {
			return err
		}
		err = b.reads.QueryRow(octx, pgSQL(b.schema, "SELECT seq - 1 FROM @.history WHERE time >= $1 ORDER BY time, seq LIMIT 1"), q.Since).Scan(&after)
		if errors.Is(err, pgx.ErrNoRows) {
			err = b.reads.QueryRow(octx, pgSQL(b.schema, "SELECT coalesce(max(seq), 0) FROM @.history")).Scan(&after)
		}
		err = b.reads.result(octx, err)
		cancel()
		if err != nil {
			return err
		}
	}
	return store.PageChanges(uint64(after), want, func(after uint64) ([]*store.Change, error) {
		return b.queryChanges(ctx, b.reads, "WHERE seq > $1 ORDER BY seq LIMIT $2", int64(after), want)
	}, fn)
}

// Interface guards.
var (
	_ store.Historian = (*Store)(nil)
	_ store.Historian = (*Backend)(nil)
)
