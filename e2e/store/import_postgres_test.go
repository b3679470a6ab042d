package store

import (
	"context"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store/postgres"
)

// caddy ark import --postgres streams a list into the PostgreSQL store
// through COPY: the identifiers resolve from the store, a withdrawn one
// keeps its reason, importing again adds nothing, and a list that
// conflicts with the store, or has a bad line, keeps nothing.
func TestImportIntoPostgres(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	_, stderr, err := caddytest.RunArkCommand(t, "", "import", "--postgres", dsn, "--schema", "imp", "testdata/import/ezid.csv")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "3 added to the store") || !strings.Contains(stderr, "1 reserved in EZID, kept reserved") {
		t.Errorf("stderr: %s", stderr)
	}
	store, err := postgres.Open(dsn, "imp")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Destruct()
	got, err := store.Lookup(context.Background(), []string{"ark:12345/fk2b8c9d", "ark:12345/fk2d3f4g", "ark:12345/nope", "ark:12345/fk2c1d2f"})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] == nil || got[0].Target != "https://repo.example.org/b8c9d" || got[0].Status != 302 || got[0].Meta["erc.who"] != "Example Museum" || got[0].Meta["dc.title"] != "Moths" {
		t.Errorf("bound: %+v", got[0])
	}
	// EZID's unavailable stays unavailable (a tombstone that may become
	// public again), its target kept; reserved stays reserved.
	if reason, ok := got[1].Unavailable(); got[1] == nil || !ok || reason != "withdrawn at the rights holder's request" || got[1].Target != "https://repo.example.org/d3f4g" {
		t.Errorf("unavailable: %+v", got[1])
	}
	if got[3] == nil || got[3].Status != 0 || got[3].Target != "https://repo.example.org/c1d2f" {
		t.Errorf("reserved: %+v", got[3])
	}
	if got[2] != nil {
		t.Errorf("an identifier not in the list: %+v", got[2])
	}
	if _, stderr, err := caddytest.RunArkCommand(t, "", "import", "--postgres", dsn, "--schema", "imp", "testdata/import/ezid.csv"); err != nil || !strings.Contains(stderr, "0 added") {
		t.Errorf("importing again: %v %s", err, stderr)
	}

	conflicting := testkit.WriteFile(t, "conflict.csv", "ark:12345/new1,https://a.example.org/1\nark:12345/fk2b8c9d,https://elsewhere.example.org/\n")
	if _, stderr, err := caddytest.RunArkCommand(t, "", "import", "--postgres", dsn, "--schema", "imp", conflicting); err == nil || !strings.Contains(err.Error()+stderr, "already bound differently") {
		t.Errorf("a conflict with the store: %v %s", err, stderr)
	}
	bad := testkit.WriteFile(t, "bad.csv", "ark:12345/new2,https://a.example.org/2\nnot an id,https://a.example.org/3\n")
	if _, _, err := caddytest.RunArkCommand(t, "", "import", "--postgres", dsn, "--schema", "imp", bad); err == nil {
		t.Errorf("a bad line: no error")
	}
	if got, err := store.Lookup(context.Background(), []string{"ark:12345/new1", "ark:12345/new2"}); err != nil || got[0] != nil || got[1] != nil {
		t.Errorf("a failed import kept %v %v (%v)", got[0], got[1], err)
	}
}
