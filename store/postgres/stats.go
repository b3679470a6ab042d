package postgres

import (
	"context"
	"fmt"
	"math"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
)

// The lists of names in stats_names.
const (
	pgListTop      = "top"
	pgListNotFound = "not_found"
)

// AddStats adds the counts in one transaction. Rows are added in key
// order, so that two nodes adding to the same rows at once lock them in
// the same order and never deadlock.
func (b *Backend) AddStats(ctx context.Context, s *store.Stats, keep store.StatsKeep) error {
	var days, shoulders, outcomes, lists, nameDays, ids []string
	var counts, nameCounts []int64
	for _, r := range s.Resolutions {
		if r.Count > math.MaxInt64 {
			return fmt.Errorf("statistics: count %d is more than a PostgreSQL bigint", r.Count)
		}
		days, shoulders, outcomes, counts = append(days, r.Day), append(shoulders, r.Shoulder), append(outcomes, r.Outcome), append(counts, int64(r.Count))
	}
	for _, l := range []struct {
		name  string
		names []store.NameCount
	}{{pgListTop, s.Top}, {pgListNotFound, s.NotFound}} {
		for _, n := range l.names {
			if n.Count > math.MaxInt64 {
				return fmt.Errorf("statistics: count %d is more than a PostgreSQL bigint", n.Count)
			}
			lists, nameDays, ids, nameCounts = append(lists, l.name), append(nameDays, n.Day), append(ids, n.ID), append(nameCounts, int64(n.Count))
		}
	}
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	err = pgx.BeginFunc(octx, b.pool, func(tx pgx.Tx) error {
		if len(days) > 0 {
			if _, err := tx.Exec(octx, pgSQL(b.schema, `INSERT INTO @.stats_resolutions AS r (day, shoulder, outcome, count)
				SELECT d::date, s, o, sum(c) FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS u(d, s, o, c)
				GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
				ON CONFLICT (day, shoulder, outcome) DO UPDATE SET count = r.count + excluded.count`),
				days, shoulders, outcomes, counts); err != nil {
				return err
			}
		}
		if len(lists) == 0 {
			return nil
		}
		if _, err := tx.Exec(octx, pgSQL(b.schema, `INSERT INTO @.stats_names AS n (list, day, id, count)
			SELECT l, d::date, i, sum(c) FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS u(l, d, i, c)
			GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
			ON CONFLICT (list, day, id) DO UPDATE SET count = n.count + excluded.count`),
			lists, nameDays, ids, nameCounts); err != nil {
			return err
		}
		// Keep the most counted names of each list and day touched.
		_, err := tx.Exec(octx, pgSQL(b.schema, `DELETE FROM @.stats_names n USING (
				SELECT list, day, id, row_number() OVER (PARTITION BY list, day ORDER BY count DESC, id) AS rank
				FROM @.stats_names WHERE (list, day) IN (SELECT DISTINCT l, d::date FROM unnest($1::text[], $2::text[]) AS u(l, d))
			) ranked
			WHERE n.list = ranked.list AND n.day = ranked.day AND n.id = ranked.id
				AND ranked.rank > CASE ranked.list WHEN $3 THEN $4::bigint ELSE $5::bigint END`),
			lists, nameDays, pgListTop, max(keep.Top, 0), max(keep.NotFound, 0))
		return err
	})
	return b.pool.result(octx, err)
}

// ReadStats reads the counts of the days from to to from one snapshot.
func (b *Backend) ReadStats(ctx context.Context, from, to string) (*store.Stats, error) {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	s := &store.Stats{}
	err = pgx.BeginTxFunc(octx, b.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(octx, pgSQL(b.schema, `SELECT to_char(day, 'YYYY-MM-DD'), shoulder, outcome, count FROM @.stats_resolutions
			WHERE day BETWEEN $1::date AND $2::date ORDER BY day, shoulder, outcome`), from, to)
		if err != nil {
			return err
		}
		s.Resolutions, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.ResolutionCount, error) {
			var r store.ResolutionCount
			err := row.Scan(&r.Day, &r.Shoulder, &r.Outcome, &r.Count)
			return r, err
		})
		if err != nil {
			return err
		}
		rows, err = tx.Query(octx, pgSQL(b.schema, `SELECT list, to_char(day, 'YYYY-MM-DD'), id, count FROM @.stats_names
			WHERE day BETWEEN $1::date AND $2::date ORDER BY list, day, count DESC, id`), from, to)
		if err != nil {
			return err
		}
		var list string
		var n store.NameCount
		_, err = pgx.ForEachRow(rows, []any{&list, &n.Day, &n.ID, &n.Count}, func() error {
			if list == pgListTop {
				s.Top = append(s.Top, n)
			} else {
				s.NotFound = append(s.NotFound, n)
			}
			return nil
		})
		return err
	})
	if err := b.pool.result(octx, err); err != nil {
		return nil, err
	}
	return s, nil
}

// DropStats deletes the counts of the days before day.
func (b *Backend) DropStats(ctx context.Context, before string) error {
	octx, cancel, err := b.pool.op(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	err = pgx.BeginFunc(octx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(octx, pgSQL(b.schema, "DELETE FROM @.stats_resolutions WHERE day < $1::date"), before); err != nil {
			return err
		}
		_, err := tx.Exec(octx, pgSQL(b.schema, "DELETE FROM @.stats_names WHERE day < $1::date"), before)
		return err
	})
	return b.pool.result(octx, err)
}

// Interface guard.
var _ store.StatsStore = (*Store)(nil)
