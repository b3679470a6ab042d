package postgres

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/jackc/pgx/v5"
)

// A schema made by the first migration, with bindings in it, is migrated
// to list them: the states' partial indexes, and the trigram index of the
// text, since Debian's postgresql has pg_trgm.
func TestPostgresListMigratesAnOldSchema(t *testing.T) {
	ctx := context.Background()
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		"CREATE SCHEMA ark",
		"CREATE TABLE ark.schema_version (version integer NOT NULL)",
		"INSERT INTO ark.schema_version VALUES (1)",
		pgSQL("ark", pgMigrations[0]),
		`INSERT INTO ark.bindings (key, target, status, version, updated) VALUES
			('ark:12345/a', 'https://old.example.org/a', 302, 1, now()),
			('ark:12345/b', '', 0, 1, now()),
			('ark:12345/c', 'https://old.example.org/c', 410, 2, now())`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	b := newNode(t, dsn)
	for q, want := range map[store.ListQuery][]string{
		{State: store.StateBound}:     {"ark:12345/a"},
		{State: store.StateMinted}:    {"ark:12345/b"},
		{State: store.StateWithdrawn}: {"ark:12345/c"},
		{Text: "OLD.example"}:         {"ark:12345/a", "ark:12345/c"},
	} {
		var got []string
		if err := b.List(ctx, q, func(bd *store.Binding) error {
			got = append(got, bd.Key)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("List(%+v) after migrating: %v, want %v", q, got, want)
		}
	}
	var indexes []string
	rows, err := conn.Query(ctx, "SELECT indexname FROM pg_indexes WHERE schemaname = 'ark' AND tablename = 'bindings' ORDER BY indexname")
	if err == nil {
		indexes, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bindings_bound", "bindings_minted", "bindings_text", "bindings_withdrawn"} {
		if !slices.Contains(indexes, want) {
			t.Errorf("index %s missing after the migration: %v", want, indexes)
		}
	}
}

// With windows of a few rows, text queries go through several windows
// and beyond them on most pages: List answers the same.
func TestPostgresListBeyondTheWindow(t *testing.T) {
	defer func(per, least, most int) { listWindowPer, listWindowMin, listWindowMax = per, least, most }(listWindowPer, listWindowMin, listWindowMax)
	listWindowPer, listWindowMin, listWindowMax = 1, 2, 20 // windows of 2 and 8, then every match
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	var schemas atomic.Int64
	open := func(t *testing.T) store.Store {
		return testkit.Provision(t, &Store{DSN: dsn, Schema: fmt.Sprintf("window%d", schemas.Add(1))})
	}
	reopen := func(t *testing.T, s store.Store) store.Store {
		old := s.(*Store)
		if err := old.Cleanup(); err != nil {
			t.Fatal(err)
		}
		return testkit.Provision(t, &Store{DSN: dsn, Schema: old.Schema})
	}
	storetest.RunList(t, open, reopen)
}
