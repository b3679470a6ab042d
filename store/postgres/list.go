package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
)

// pgStatePredicates are the conditions of the states, written as the
// partial indexes of migration 4 are, so that the planner uses them.
var pgStatePredicates = map[store.State]string{
	store.StateMinted:    "status = 0",
	store.StateWithdrawn: "status = 410",
	store.StateBound:     "status <> 0 AND status <> 410",
}

// listTimeoutFactor bounds each query of List at this many times the
// store's timeout: a text query without a trigram index reads the
// bindings of its range, which takes longer than a lookup.
const listTimeoutFactor = 15

// The rows in key order that a text query reads for a page before it
// asks for every match instead: a window of listWindowPer rows per
// binding wanted, at least listWindowMin, then windows four times larger
// as long as they are at most listWindowMax rows. Variables so that a
// test can make windows that a few bindings fill.
var (
	listWindowPer = 20
	listWindowMin = 2000
	listWindowMax = 40000
)

// List implements store.Lister with keyset pagination on the key, a page
// of at most q.Want bindings at a time, holding no pooled connection while
// fn runs. A state's rows come from its partial index. Text is looked for
// with ILIKE (see textMatch) in two steps a page: first in the next rows
// in key order, in windows of a few thousand growing to a few ten
// thousand, which finds text that many bindings hold without reading the
// others; then, if the windows did not fill the page, among every match
// after them, which a trigram index finds where pg_trgm was available
// when the schema was migrated (else a scan of the range). Each query is
// planned for its values: a plan made without the text has to guess how
// much of the table it matches.
func (b *Backend) List(ctx context.Context, q store.ListQuery, fn func(*store.Binding) error) error {
	if err := b.reads.allow(); err != nil {
		return err
	}
	if err := b.reads.ready(ctx); err != nil {
		return err
	}
	want := q.Want
	if want <= 0 {
		want = store.EachBatchCount
	}
	for after := q.After; ; {
		batch, more, err := b.listPage(ctx, q, after, want)
		if err != nil {
			return err
		}
		for _, bd := range batch {
			if err := fn(bd); err != nil {
				return err
			}
		}
		if more == "" {
			return nil
		}
		after = more
	}
}

// listPage reads the next page of q after after: up to want bindings,
// and the key to read the next page after, "" when none may follow.
func (b *Backend) listPage(ctx context.Context, q store.ListQuery, after string, want int) ([]*store.Binding, string, error) {
	qctx, cancel := context.WithTimeout(ctx, listTimeoutFactor*b.timeout)
	defer cancel()
	var page []*store.Binding
	more := func() string {
		if len(page) < want {
			return ""
		}
		return page[len(page)-1].Key
	}
	if q.Text == "" {
		query, args := listSQL(q, after, "", want)
		err := b.queryBindings(qctx, query, args, &page)
		return page, more(), err
	}
	for window := max(listWindowMin, listWindowPer*want); window <= listWindowMax; window *= 4 {
		query, args := listSQL(q, after, "window", want-len(page), window)
		if err := b.queryBindings(qctx, query, args, &page); err != nil || len(page) == want {
			return page, more(), err
		}
		query, args = listSQL(q, after, "edge", window)
		err := b.reads.QueryRow(qctx, pgSQL(b.schema, query), append([]any{pgx.QueryExecModeCacheDescribe}, args...)...).Scan(&after)
		if errors.Is(err, pgx.ErrNoRows) {
			return page, "", b.reads.result(qctx, nil) // the window held the rest of the range
		}
		if err := b.reads.result(qctx, err); err != nil {
			return nil, "", err
		}
	}
	query, args := listSQL(q, after, "beyond", want-len(page))
	err := b.queryBindings(qctx, query, args, &page)
	return page, more(), err
}

// queryBindings runs query, planned for its arguments, and adds the
// bindings it answers to out.
func (b *Backend) queryBindings(ctx context.Context, query string, args []any, out *[]*store.Binding) error {
	rows, err := b.reads.Query(ctx, pgSQL(b.schema, query), append([]any{pgx.QueryExecModeCacheDescribe}, args...)...)
	if err != nil {
		return b.reads.result(ctx, err)
	}
	batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.Binding, error) { return scanBinding(row) })
	if err := b.reads.result(ctx, err); err != nil {
		return err
	}
	*out = append(*out, batch...)
	return nil
}

// listSQL is a query of List for q after the key after, and its
// arguments. Its step is:
//   - "": the first n bindings that q matches (no text);
//   - "window": of the next window rows in key order (limits[1]), the
//     first n (limits[0]) that hold the text;
//   - "edge": the key of the window's last row (limits[0] rows);
//   - "beyond": the first n that hold the text, of all that do.
func listSQL(q store.ListQuery, after, step string, limits ...int) (string, []any) {
	args := []any{after}
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
	rangeSQL := "FROM @.bindings WHERE " + strings.Join(where, " AND ")
	var match string
	if q.Text != "" && step != "edge" {
		match = textMatch(arg("%"+likeEscaper.Replace(q.Text)+"%"), q.Text)
	}
	switch step {
	case "window":
		window, n := arg(limits[1]), arg(limits[0])
		return "SELECT " + pgColumns + " FROM (SELECT * " + rangeSQL + " ORDER BY key LIMIT " + window + ") AS w WHERE " + match +
			" ORDER BY key LIMIT " + n, args
	case "edge":
		offset := arg(limits[0] - 1)
		return "SELECT key " + rangeSQL + " ORDER BY key OFFSET " + offset + " LIMIT 1", args
	case "beyond":
		// Every match first (MATERIALIZED: not read in key order until
		// enough turn up, which the window has just failed to do), then
		// the first n of them.
		n := arg(limits[0])
		return "WITH m AS MATERIALIZED (SELECT " + pgColumns + " " + rangeSQL + " AND " + match + ") SELECT * FROM m ORDER BY key LIMIT " + n, args
	}
	if match != "" {
		rangeSQL += " AND " + match
	}
	n := arg(limits[0])
	return "SELECT " + pgColumns + " " + rangeSQL + " ORDER BY key LIMIT " + n, args
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

// Interface guards.
var (
	_ store.Lister = (*Store)(nil)
	_ store.Lister = (*Backend)(nil)
)
