package store

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// An EZID download with test ARKs (NAAN 99999) in it: refused, with the
// flag that leaves them out named; with --skip-test-arks they are left
// out and counted, and the table loads and resolves the rest.
func TestImportSkipsTestARKsWhenAsked(t *testing.T) {
	in := filepath.Join("testdata/import", "ezid-test-arks.csv")
	out := filepath.Join(t.TempDir(), "arks.json")
	_, stderr, err := caddytest.RunArkCommand(t, "", "import", "-o", out, in)
	want := in + `:3: id "ark:/99999/fk4q2w3e": NAAN 99999 is reserved for invalid ARKs (test ARKs, as in an EZID download: --skip-test-arks leaves them out)`
	if err == nil || !strings.Contains(stderr, want) {
		t.Errorf("import without --skip-test-arks: %v\n%s\nwant a refusal saying %s", err, stderr, want)
	}

	_, stderr, err = caddytest.RunArkCommand(t, "", "import", "--skip-test-arks", "-o", out, in)
	if err != nil {
		t.Fatalf("import --skip-test-arks: %v\n%s", err, stderr)
	}
	// The reserved one is left out as EZID's reserved, before its NAAN is looked at.
	if want := in + " (csv): 2 identifiers, 3 lines skipped (3 under NAAN 99999 (test ARKs); --verbose lists them), written to " + out + "\n"; stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
	serveImported(t, out, map[string]expected{
		"/ark:12345/fk2b8c9d": {status: 302, location: "https://repo.example.org/b8c9d"},
		"/ark:12345/fk2c1d2f": {status: 302, location: "https://repo.example.org/c1d2f"},
		"/ark:99999/fk4q2w3e": {status: 400},
	})
}
