package tables

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// roundTripTable has an entry of every shape a table holds: defaults,
// each status, passthrough off, metadata empty and not, a withdrawal with
// its reason and one without a target, a URN, and text that JSON escapes.
const roundTripTable = `{"entries": [
	{"id": "ark:/12345/rt-1", "target": "https://repo.example.org/1"},
	{"id": "ark:12345/rt2", "target": "/objects/rt2.html", "passthrough": false},
	{"id": "ark:12345/rt3", "target": "https://repo.example.org/3?a=1&b=<2>", "status": 303, "meta": {"who": "Ada \"A\" Lovelace", "what": "дневник\u2028"}},
	{"id": "ark:12345/rt4", "target": "https://repo.example.org/4", "status": 307, "meta": {}},
	{"id": "ark:12345/rt5", "target": "/objects/rt5.html", "status": 200},
	{"id": "ark:12345/rt6", "target": "https://repo.example.org/6", "status": 410, "meta": {"reason": "duplicate of ark:12345/rt1", "who": "W"}},
	{"id": "ark:12345/rt7", "status": 410},
	{"id": "urn:isbn:978-0-306-40615-7", "target": "https://books.example.org/x", "passthrough": true}
]}
`

// compileExport compiles the table at path with the real binary and
// exports it again.
func compileExport(t *testing.T, path string) string {
	t.Helper()
	compiled := filepath.Join(t.TempDir(), "c.arkt")
	if _, stderr, status := caddytest.RunCaddy(t, "", "ark", "compile", path, "-o", compiled); status != 0 {
		t.Fatalf("compile %s: %s", path, stderr)
	}
	out, stderr, status := caddytest.RunCaddy(t, "", "ark", "export", compiled)
	if status != 0 {
		t.Fatalf("export: %s", stderr)
	}
	return out
}

// importJSON runs `caddy ark import` on the file at path, with the
// format guessed, and returns the table it writes.
func importJSON(t *testing.T, path string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "imported.json")
	if _, stderr, status := caddytest.RunCaddy(t, "", "ark", "import", "-o", out, path); status != 0 {
		t.Fatalf("import %s: %s", path, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// table → compile → export → import → compile → export: the two exports
// are the same bytes, with the real binary. On main, `caddy ark import`
// could not read a JSON table at all.
func TestRoundTripCompileExportImport(t *testing.T) {
	first := compileExport(t, testkit.WriteFile(t, "t.json", roundTripTable))
	exported := testkit.WriteFile(t, "export.json", first)
	imported := importJSON(t, exported)
	if again := compileExport(t, testkit.WriteFile(t, "imported.json", imported)); again != first {
		t.Errorf("the export changed on its way through import:\nfirst:\n%s\nagain:\n%s\nimported:\n%s", first, again, imported)
	}
	// Standard input, told by its first byte.
	stdout, stderr, status := caddytest.RunCaddy(t, first, "ark", "import", "-")
	if status != 0 || stdout != imported || stderr != "stdin (json): 8 identifiers\n" {
		t.Errorf("import - : status %d, stderr %q, stdout:\n%s", status, stderr, stdout)
	}
	// A table the reader refuses is refused with its line.
	bad := testkit.WriteFile(t, "bad.json", "{\"entries\": [\n{\"id\": \"ark:12345/a\", \"target\": \"/a\"},\n{\"id\": \"ark:12345/b\", \"tagret\": \"/b\"}\n]}\n")
	if _, stderr, status := caddytest.RunCaddy(t, "", "ark", "import", bad); status != 1 || stderr != bad+":3: unknown field \"tagret\" (an entry has id, target, status, passthrough and meta)\nError: "+bad+": 1 problem: the table was not completed\n" {
		t.Errorf("a bad table: status %d, stderr %q", status, stderr)
	}
}

// An API export imported through the API exports the same bytes; served
// as a table, and through `caddy ark import`, compile and export, it reads
// back as the same withdrawals. On main, export wrote a withdrawal's
// reason as meta "withdrawn", which a table serves as any metadata, not
// as the reason ?info gives.
func TestRoundTripAPIExport(t *testing.T) {
	const minter = "minter ark:12345/x5 .reeddeedk"
	s := caddytest.StartAPISite(t, minter)
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/id/ark:12345/x5a1", `{"target": "https://repo.example.org/a1", "status": 307, "meta": {"who": "W", "reason": "a meta reason"}}`},
		{"PUT", "/id/ark:12345/a2", `{"target": "/objects/a2.html", "passthrough": false}`},
		{"PUT", "/id/ark:12345/a3", `{"target": "https://repo.example.org/a3", "meta": {"what": "old", "reason": "stale"}}`},
		{"POST", "/withdraw/ark:12345/a3", `{"reason": "Duplicate of ark:12345/x5a1"}`},
		{"POST", "/withdraw/ark:12345/a4", `{"reason": "Never published"}`},
		{"POST", "/mint/ark:12345/x5", ""}, // minted, not bound: not exported
	} {
		if got := s.Call(c.method, c.path, "editor", c.body); got.Status >= 300 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, got.Status, got.Body)
		}
	}
	export := func(s *caddytest.APISite) string {
		got := s.Call("GET", "/export", "editor", "")
		if got.Status != http.StatusOK {
			t.Fatalf("export: %d %s", got.Status, got.Body)
		}
		return got.Body
	}
	first := export(s)
	reasons := map[string]string{"ark:12345/a3": "Duplicate of ark:12345/x5a1", "ark:12345/a4": "Never published"}
	for id, reason := range reasons {
		if got := caddytest.DecodeRecord(t, s.Do(http.MethodGet, "/"+id+"?info", caddytest.AcceptJSON)); got.Reason != reason {
			t.Errorf("%s: the store's ?info gives the reason %q, want %q", id, got.Reason, reason)
		}
	}

	// One site runs at a time: s2 replaces s.
	s2 := caddytest.StartAPISite(t, minter)
	if got := s2.Call("POST", "/import", "editor", first); got.Status != http.StatusOK {
		t.Fatalf("import: %d %s", got.Status, got.Body)
	}
	if again := export(s2); again != first {
		t.Errorf("API export → import → export changed:\nfirst:\n%s\nagain:\n%s", first, again)
	}
	if b := s2.Lookup("ark:12345/a3").Binding; b.Status != 410 || b.Reason != "Duplicate of ark:12345/x5a1" || b.Meta["what"] != "old" || b.Meta["reason"] != "" {
		t.Errorf("imported withdrawal: %+v", b)
	}

	exported := testkit.WriteFile(t, "export.json", first)
	if again := compileExport(t, testkit.WriteFile(t, "imported.json", importJSON(t, exported))); again != first {
		t.Errorf("API export → caddy ark import → compile → export changed:\nfirst:\n%s\nagain:\n%s", first, again)
	}

	// The export served as a table gives the reasons the store gave.
	tbl := caddytest.StartSite(t, "ark {\n\t\tnaan 12345\n\t\ttable "+exported+"\n\t}")
	for id, reason := range reasons {
		if got := caddytest.DecodeRecord(t, tbl.Do(http.MethodGet, "/"+id+"?info", caddytest.AcceptJSON)); got.Reason != reason || got.Status != 410 {
			t.Errorf("%s: the exported table's ?info gives %d, reason %q; want 410, %q", id, got.Status, got.Reason, reason)
		}
	}
}
