package postgres

import (
	"context"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
)

// pgStatePredicates are the conditions of the states, written as the
// partial indexes of migration 2 are, so that the planner uses them.
var pgStatePredicates = map[store.State]string{
	store.StateMinted:    "status = 0",
	store.StateWithdrawn: "status = 410",
	store.StateBound:     "status <> 0 AND status <> 410",
}

// listTimeoutFactor bounds each query of List at this many times the
// store's timeout: a text query without a trigram index reads the
// bindings of its range, which takes longer than a lookup.
const listTimeoutFactor = 15

// List implements store.Lister with keyset pagination on the key, a
// query of at most q.Want rows at a time, holding no pooled connection
// while fn runs. A state's rows come from its partial index; text is
// looked for with ILIKE (see textMatch), which a trigram index serves
// where pg_trgm was available when the schema was migrated.
func (b *Backend) List(ctx context.Context, q store.ListQuery, fn func(*store.Binding) error) error {
	if err := b.allow(); err != nil {
		return err
	}
	if err := b.ready(ctx); err != nil {
		return err
	}
	want := q.Want
	if want <= 0 {
		want = store.EachBatchCount
	}
	query, args := listSQL(q, want)
	query = pgSQL(b.schema, query)
	for after := q.After; ; {
		args[0] = after
		qctx, cancel := context.WithTimeout(ctx, listTimeoutFactor*b.timeout)
		rows, err := b.pool.Query(qctx, query, args...)
		if err != nil {
			err = b.result(qctx, err)
			cancel()
			return err
		}
		batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.Binding, error) { return scanBinding(row) })
		err = b.result(qctx, err)
		cancel()
		if err != nil {
			return err
		}
		for _, bd := range batch {
			if err := fn(bd); err != nil {
				return err
			}
		}
		if len(batch) < want {
			return nil
		}
		after = batch[len(batch)-1].Key
	}
}

// listSQL is List's query for q, want rows at a time, and its arguments;
// the first, $1, is the key to read after.
func listSQL(q store.ListQuery, want int) (string, []any) {
	args := []any{q.After}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where := []string{"key > $1"}
	if q.Prefix != "" {
		where = append(where, "key >= "+arg(q.Prefix))
		if end, ok := store.PrefixEnd(q.Prefix); ok {
			where = append(where, "key < "+arg(end))
		}
	}
	if p, ok := pgStatePredicates[q.State]; ok {
		where = append(where, p)
	}
	if q.Text != "" {
		where = append(where, textMatch(arg("%"+likeEscaper.Replace(q.Text)+"%"), q.Text))
	}
	limit := arg(want)
	return "SELECT " + pgColumns + " FROM @.bindings WHERE " + strings.Join(where, " AND ") + " ORDER BY key LIMIT " + limit, args
}

// pgTextColumns is the text that the trigram index of migration 6 holds
// for a binding: its target and its metadata as jsonb writes them out.
const pgTextColumns = "(target || ' ' || coalesce(meta::text, ''))"

// textMatch is the condition that the target or a metadata value of a
// binding holds text, with pattern the parameter of its ILIKE pattern.
// Metadata written out hold a value's text as it is, unless it escapes
// characters (quotes, backslashes; text has no control characters): for
// text without them, the indexed pgTextColumns are asked first, and only
// the rows they match are looked at closely.
func textMatch(pattern, text string) string {
	exact := "(target ILIKE " + pattern + " OR EXISTS (SELECT FROM jsonb_each_text(meta) AS m(k, v) WHERE v ILIKE " + pattern + "))"
	if strings.ContainsAny(text, `"\`) {
		return exact
	}
	return pgTextColumns + " ILIKE " + pattern + " AND " + exact
}

// likeEscaper escapes LIKE's wildcards and its escape character.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// List implements store.Lister.
func (s *Store) List(ctx context.Context, q store.ListQuery, fn func(*store.Binding) error) error {
	return s.b.List(ctx, q, fn)
}

// Interface guards.
var (
	_ store.Lister = (*Store)(nil)
	_ store.Lister = (*Backend)(nil)
)
