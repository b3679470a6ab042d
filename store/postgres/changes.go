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
		const where = "WHERE seq > $1 ORDER BY seq LIMIT $2"
		chunk, err := b.queryChanges(ctx, b.reads, where, int64(after), want)
		if errors.Is(err, store.ErrUnavailable) {
			return b.changesFromAnyServer(ctx, err, where, int64(after), want)
		}
		return chunk, err
	}, fn)
}

// changesFromAnyServer reads the history records that where selects on a
// connection of its own to any server of the reads' DSN that answers,
// when none of the kind it asks for does (its target_session_attrs;
// read-write while the primary is away), as the listener does: a
// standby holds what the primary committed, so that a node's local copy
// goes on following the history through the primary's outage. It
// returns unavailable, the reads' pool's error, when the DSN asks for no
// kind of server, or none answers.
func (b *Backend) changesFromAnyServer(ctx context.Context, unavailable error, where string, args ...any) ([]*store.Change, error) {
	cfg := b.reads.Config().ConnConfig.Copy()
	if cfg.ValidateConnect == nil {
		return nil, unavailable
	}
	cfg.ValidateConnect = nil
	cfg.RuntimeParams["application_name"] = pgListenerName
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, unavailable
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, pgSQL(b.schema, "SELECT "+pgChangeColumns+" FROM @.history "+where), args...)
	if err != nil {
		return nil, unavailable
	}
	chunk, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.Change, error) { return scanChange(row) })
	if err != nil {
		return nil, unavailable
	}
	return chunk, nil
}

// Interface guards.
var (
	_ store.Historian = (*Store)(nil)
	_ store.Historian = (*Backend)(nil)
)
