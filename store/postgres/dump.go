package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
)

// Dump implements store.Dumper from one read-only REPEATABLE READ
// transaction: a consistent snapshot while the nodes go on writing. It is
// not bounded by the store's timeout.
func (b *Backend) Dump(ctx context.Context, fn func(*store.Item) error) error {
	if err := b.pool.allow(); err != nil {
		return err
	}
	if err := b.ready(ctx); err != nil {
		return err
	}
	var fnErr error
	err := pgx.BeginTxFunc(ctx, b.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		for _, part := range []struct {
			query string
			item  func(pgx.Rows) (*store.Item, error)
		}{
			{"SELECT " + pgColumns + " FROM @.bindings ORDER BY key", func(rows pgx.Rows) (*store.Item, error) {
				bd, err := scanBinding(rows)
				return &store.Item{Binding: bd}, err
			}},
			{"SELECT " + pgChangeColumns + " FROM @.history ORDER BY seq", func(rows pgx.Rows) (*store.Item, error) {
				c, err := scanChange(rows)
				return &store.Item{Change: c}, err
			}},
			{"SELECT name, value FROM @.counters ORDER BY name", func(rows pgx.Rows) (*store.Item, error) {
				var (
					name  string
					value int64
				)
				err := rows.Scan(&name, &value)
				return &store.Item{Counter: &store.Counter{Name: name, Value: uint64(value)}}, err
			}},
			{pgDumpStats, func(rows pgx.Rows) (*store.Item, error) {
				var r store.StatRow
				err := rows.Scan(&r.Day, &r.List, &r.Shoulder, &r.Outcome, &r.ID, &r.Count)
				return &store.Item{Stat: &r}, err
			}},
			{"SELECT " + pgKeyColumns + " FROM @.api_keys ORDER BY name", func(rows pgx.Rows) (*store.Item, error) {
				k, err := scanKey(rows)
				return &store.Item{Key: k}, err
			}},
		} {
			rows, err := tx.Query(ctx, pgSQL(b.schema, part.query))
			if err != nil {
				return err
			}
			for rows.Next() {
				it, err := part.item(rows)
				if err == nil {
					if fnErr = fn(it); fnErr != nil {
						err = fnErr
					}
				}
				if err != nil {
					rows.Close()
					return err
				}
			}
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if fnErr != nil {
		return fnErr
	}
	return b.pool.result(ctx, err)
}

// pgDumpStats reads the rows of the statistics, both tables, in
// store.StatRow order.
const pgDumpStats = `SELECT to_char(day, 'YYYY-MM-DD'), list, shoulder, outcome, id, count FROM (
		SELECT day, '` + store.StatResolutions + `' AS list, shoulder, outcome, '' AS id, count FROM @.stats_resolutions
		UNION ALL SELECT day, list, '', '', id, count FROM @.stats_names
	) AS s ORDER BY day, list COLLATE "C", shoulder COLLATE "C", outcome COLLATE "C", id COLLATE "C"`

// Load implements store.Dumper in one transaction that locks the store's
// tables against every writer: the bindings, the history (with its
// sequence numbers and, for the nodes' watch, this transaction's id), the
// counters and the resolutions of the statistics each go in with COPY;
// the statistics' lists of names, held until then (a few hundred names a
// day at most), with a COPY after. The history's sequence then goes on
// after the dump's last record. Times are kept to the microsecond, as
// PostgreSQL keeps them. It is not bounded by the store's timeout.
func (b *Backend) Load(ctx context.Context, next func() (*store.Item, error)) error {
	if err := b.pool.allow(); err != nil {
		return err
	}
	if err := b.ready(ctx); err != nil {
		return err
	}
	src := &loadSource{next: store.CheckOrder(next)}
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, pgSQL(b.schema, "SET LOCAL lock_timeout = 0; LOCK TABLE @.bindings, @.history, @.counters, @.stats_resolutions, @.stats_names, @.api_keys IN SHARE ROW EXCLUSIVE MODE")); err != nil {
			return err
		}
		var used bool
		if err := tx.QueryRow(ctx, pgSQL(b.schema, `SELECT EXISTS (SELECT FROM @.bindings) OR EXISTS (SELECT FROM @.history) OR EXISTS (SELECT FROM @.counters)
			OR EXISTS (SELECT FROM @.stats_resolutions) OR EXISTS (SELECT FROM @.stats_names) OR EXISTS (SELECT FROM @.api_keys)`)).Scan(&used); err != nil {
			return err
		}
		if used {
			return store.ErrNotEmpty
		}
		for _, part := range []struct {
			stage   int
			table   string
			columns []string
		}{
			{1, "bindings", []string{"key", "target", "status", "passthrough", "meta", "reason", "version", "updated", "by"}},
			{2, "history", []string{"seq", "time", "key", "by", "old", "new", "batch"}},
			{3, "counters", []string{"name", "value"}},
			{4, "stats_resolutions", []string{"day", "shoulder", "outcome", "count"}},
			{5, "api_keys", strings.Split(pgKeyColumns, ", ")},
		} {
			src.stage = part.stage
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{b.schema, part.table}, part.columns, src); err != nil {
				if src.err != nil {
					return &importInputError{src.err}
				}
				return err
			}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{b.schema, "stats_names"}, []string{"list", "day", "id", "count"}, pgx.CopyFromRows(src.names)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, pgSQL(b.schema, "SELECT setval(pg_get_serial_sequence($1, 'seq'), (SELECT max(seq) FROM @.history))"),
			pgx.Identifier{b.schema, "history"}.Sanitize()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", b.watch.channel(b.schema))
		return err
	})
	var input *importInputError
	switch {
	case errors.As(err, &input):
		return input.err
	case errors.Is(err, store.ErrNotEmpty):
		return err
	}
	if err := b.pool.result(ctx, err); err != nil {
		return err
	}
	b.watch.local(nil)
	return nil
}

// loadSource feeds the COPY of one table (stage 1 bindings, 2 history,
// 3 counters, 4 the resolutions of the statistics, 5 the API keys) from a Load's next,
// keeping the first item of the next stage for the COPY after it. In
// stage 4 it keeps the rows of the statistics' lists of names in names.
type loadSource struct {
	next    func() (*store.Item, error)
	stage   int
	pending *store.Item // read, not yet copied
	done    bool        // next returned io.EOF
	row     []any
	names   [][]any // the rows of stats_names
	err     error   // next's error, io.EOF excepted, or an item that does not fit
}

func (s *loadSource) Next() bool {
	for {
		if s.pending == nil && !s.done {
			it, err := s.next()
			switch {
			case errors.Is(err, io.EOF):
				s.done = true
			case err != nil:
				s.err = err
				return false
			default:
				s.pending = it
			}
		}
		it := s.pending
		if it == nil || s.stage != 4 || it.Stat == nil || it.Stat.List == store.StatResolutions {
			return s.take(it)
		}
		day, count, err := pgStatRow(it.Stat)
		if err != nil {
			s.err = err
			return false
		}
		s.names = append(s.names, []any{it.Stat.List, day, it.Stat.ID, count})
		s.pending = nil
	}
}

// take sets row to it, the pending item, if it is a row of the stage's
// table, and reports whether it did.
func (s *loadSource) take(it *store.Item) bool {
	switch {
	case it == nil:
		return false
	case it.Binding != nil && s.stage == 1:
		bd := it.Binding
		if bd.Version > math.MaxInt64 {
			s.err = fmt.Errorf("%s: version %d: more than a PostgreSQL bigint", bd.Key, bd.Version)
			return false
		}
		s.row = []any{bd.Key, bd.Target, int32(bd.Status), bd.Passthrough, pgMeta(bd.Meta), bd.Reason, int64(bd.Version), bd.Updated, bd.By}
	case it.Change != nil && s.stage == 2:
		c := it.Change
		if c.Seq > math.MaxInt64 {
			s.err = fmt.Errorf("history record %d: more than a PostgreSQL bigint", c.Seq)
			return false
		}
		if c.Batch > math.MaxInt64 {
			s.err = fmt.Errorf("history record %d: batch %d: more than a PostgreSQL bigint", c.Seq, c.Batch)
			return false
		}
		var batch *int64
		if c.Batch != 0 {
			n := int64(c.Batch)
			batch = &n
		}
		s.row = []any{int64(c.Seq), c.Time, c.Key, c.By, pgJSON(c.Old), pgJSON(c.New), batch}
	case it.Counter != nil && s.stage == 3:
		if it.Counter.Value > math.MaxInt64 {
			s.err = fmt.Errorf("counter %s: %d: more than a PostgreSQL bigint", it.Counter.Name, it.Counter.Value)
			return false
		}
		s.row = []any{it.Counter.Name, int64(it.Counter.Value)}
	case it.Stat != nil && s.stage == 4:
		day, count, err := pgStatRow(it.Stat)
		if err != nil {
			s.err = err
			return false
		}
		s.row = []any{day, it.Stat.Shoulder, it.Stat.Outcome, count}
	case it.Key != nil && s.stage == 5:
		k := it.Key
		s.row = []any{k.Name, k.Hash, k.Scopes, k.Label, pgExpires(k), k.Created, k.CreatedBy}
	default:
		return false // the next stage's
	}
	s.pending = nil
	return true
}

// pgStatRow returns the day and the count of r as PostgreSQL keeps them.
func pgStatRow(r *store.StatRow) (time.Time, int64, error) {
	if r.Count > math.MaxInt64 {
		return time.Time{}, 0, fmt.Errorf("statistics of %s: %d: more than a PostgreSQL bigint", r.Day, r.Count)
	}
	day, err := time.Parse(time.DateOnly, r.Day)
	return day, int64(r.Count), err
}

func (s *loadSource) Values() ([]any, error) { return s.row, nil }

func (s *loadSource) Err() error { return s.err }

// Interface guards.
var (
	_ store.Dumper = (*Store)(nil)
	_ store.Dumper = (*Backend)(nil)
)
