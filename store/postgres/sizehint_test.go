package postgres

import (
	"context"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store/storetest"
)

// A table never analyzed (an import too small to analyze it, before
// autovacuum's round) still gives a size: the planner's guess from the
// table's pages, the same order as the rows it holds.
func TestSizeHintOfATableNeverAnalyzed(t *testing.T) {
	s := testkit.Provision(t, &Store{DSN: testkit.SharedPostgres(t).CreateDB(t)})
	ctx := context.Background()
	b := s.backend.(*Backend)
	if _, err := b.pool.Exec(ctx, pgSQL(b.schema, "ALTER TABLE @.bindings SET (autovacuum_enabled = off)")); err != nil {
		t.Fatal(err)
	}
	const n = pgAnalyzeAfter - 1
	if _, err := s.Import(ctx, storetest.Bindings(n), "test"); err != nil {
		t.Fatal(err)
	}
	var analyzed float64
	if err := b.pool.QueryRow(ctx, pgSQL(b.schema, "SELECT reltuples FROM pg_class WHERE oid = '@.bindings'::regclass")).Scan(&analyzed); err != nil || analyzed >= 0 {
		t.Fatalf("reltuples = %v, %v: the table was analyzed, and this test tests nothing", analyzed, err)
	}
	if got, ok := s.SizeHint(ctx); !ok || got < n/3 || got > 3*n {
		t.Errorf("SizeHint of %d bindings never analyzed = %d, %v; want within a factor of 3", n, got, ok)
	}
}
