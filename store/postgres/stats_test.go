package postgres

import (
	"context"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
)

// A schema made before the statistics (version 1) is migrated when a node
// of this version starts: its bindings stay, and statistics are kept.
func TestPostgresStatsMigrateVersion1(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		"CREATE SCHEMA ark",
		"CREATE TABLE ark.schema_version (version integer NOT NULL)",
		"INSERT INTO ark.schema_version VALUES (1)",
		pgSQL("ark", pgMigrations[0]),
		`INSERT INTO ark.bindings (key, target, status, version, updated) VALUES ('ark:12345/old', 'https://example.org/old', 302, 1, now())`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	b := newNode(t, dsn)
	got, err := b.Lookup(ctx, []string{"ark:12345/old"})
	if err != nil || got[0] == nil || got[0].Target != "https://example.org/old" {
		t.Fatalf("the binding of version 1 after the migration: %v, %v", got, err)
	}
	if err := b.AddStats(ctx, &store.Stats{Resolutions: []store.ResolutionCount{{Day: "2025-01-01", Shoulder: "ark:12345", Outcome: "redirect", Count: 1}}}, store.StatsKeep{}); err != nil {
		t.Fatal(err)
	}
	var version int
	if err := conn.QueryRow(ctx, "SELECT version FROM ark.schema_version").Scan(&version); err != nil || version != len(pgMigrations) {
		t.Errorf("schema_version %d, %v; want %d", version, err, len(pgMigrations))
	}
}

// A server whose DateStyle is not ISO still gives days as YYYY-MM-DD, in
// the statistics read and in a dump, which a load checks.
func TestPostgresStatsDaysWhateverTheDateStyle(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{conn.Config().Database}.Sanitize()+" SET datestyle TO 'SQL, DMY'"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	b := newNode(t, dsn)
	in := &store.Stats{
		Resolutions: []store.ResolutionCount{{Day: "2026-11-28", Shoulder: "ark:12345/x5", Outcome: "redirect", Count: 3}},
		Top:         []store.NameCount{{Day: "2026-11-28", ID: "ark:12345/x5wf", Count: 3}},
	}
	if err := b.AddStats(ctx, in, store.StatsKeep{Top: 10, NotFound: 10}); err != nil {
		t.Fatal(err)
	}
	got, err := b.ReadStats(ctx, "2026-11-01", "2026-11-30")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Resolutions) != 1 || got.Resolutions[0].Day != "2026-11-28" || len(got.Top) != 1 || got.Top[0].Day != "2026-11-28" {
		t.Errorf("ReadStats under DateStyle SQL, DMY: %+v", got)
	}
	var days []string
	if err := b.Dump(ctx, func(it *store.Item) error {
		if it.Stat != nil {
			days = append(days, it.Stat.Day)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(days) != 2 || days[0] != "2026-11-28" || days[1] != "2026-11-28" {
		t.Errorf("the dump's days under DateStyle SQL, DMY: %q", days)
	}
}
