package postgres

import (
	"context"
	"encoding/json"
)

// SizeHint implements store.Store: the planner's estimate of the rows of
// the bindings table, read from the server that serves lookups by
// EXPLAIN, the way PostgreSQL's wiki counts a large table fast. The
// planner scales the rows ANALYZE last counted (pg_class.reltuples, which
// autovacuum keeps, and an import of many bindings refreshes: analyze) to
// the table's size now, and guesses from its size alone when it was never
// analyzed.
func (b *Backend) SizeHint(ctx context.Context) (n int64, ok bool) {
	octx, cancel, err := b.reads.op(ctx)
	if err != nil {
		return 0, false
	}
	defer cancel()
	var plan []byte
	err = b.reads.QueryRow(octx, pgSQL(b.schema, "EXPLAIN (FORMAT JSON) SELECT key FROM @.bindings")).Scan(&plan)
	if b.reads.result(octx, err) != nil {
		return 0, false
	}
	var explained []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		}
	}
	if json.Unmarshal(plan, &explained) != nil || len(explained) != 1 {
		return 0, false
	}
	return int64(explained[0].Plan.Rows), true
}
