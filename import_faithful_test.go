package ark

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// importTo runs `caddy ark import -o <table> args...` and returns the
// table file, its stderr and the error.
func importTo(t *testing.T, args ...string) (out, stderr string, err error) {
	t.Helper()
	out = filepath.Join(t.TempDir(), "arks.json")
	stdout, stderr, err := runArkCommand(t, "", append([]string{"import", "-o", out}, args...)...)
	if stdout != "" {
		t.Errorf("stdout %q with -o", stdout)
	}
	return out, stderr, err
}

// The file a map block includes (include arks.map;) holds "key value;"
// lines. Taken by its .map extension for a RewriteMap, every target kept
// its ";" (in place, /objects/m1.html; was served) and the import said
// done. It is read as the inside of a map block, by its ";" whatever its
// name, and a RewriteMap read of such lines is refused.
func TestImportNginxIncludedMapFile(t *testing.T) {
	plain := testkit.WriteFile(t, "plain.map", "/ark:/12345/m0a1 /objects/m0a1.html;\nark:12345/m0b2 https://repo.example.org/m0b2;\n")
	out, stderr, err := importTo(t, plain)
	if err != nil || stderr != plain+" (nginx): 2 identifiers, written to "+out+"\n" {
		t.Errorf("import: %v\n%s", err, stderr)
	}
	serveImported(t, out, map[string]expected{
		"/ark:12345/m0a1": {status: 200, body: "/objects/m0a1.html"},
		"/ark:12345/m0b2": {status: 302, location: "https://repo.example.org/m0b2"},
	})

	m := "# included by map $uri $ark_target { include arks.map; }\n" +
		"/ark:/12345/m1b2c3   /objects/m1b2c3.html;\n" +
		"ark:12345/m1d4f5     \"https://repo.example.org/m1d4f5?a=1;b=2\";\n" +
		"'ark:12345/m1g6h7'   https://repo.example.org/m1g6h7;  # quoted key\n" +
		"default \"\";\n"
	path := testkit.WriteFile(t, "arks.map", m)
	out, stderr, err = importTo(t, path)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	want := path + ":5: default: ignored: a table has no default; identifiers it does not hold get 404, or go to the foreign resolver\n" +
		path + " (nginx): 3 identifiers, written to " + out + "\n"
	if stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
	serveImported(t, out, map[string]expected{
		"/ark:12345/m1b2c3": {status: 200, body: "/objects/m1b2c3.html"},
		"/ark:12345/m1d4f5": {status: 302, location: "https://repo.example.org/m1d4f5?a=1;b=2"},
		"/ark:12345/m1g6h7": {status: 302, location: "https://repo.example.org/m1g6h7"},
	})

	// Named .txt, with --format nginx, or from standard input: the same.
	for _, args := range [][]string{
		{testkit.WriteFile(t, "arks.txt", m)},
		{"--format", "nginx", testkit.WriteFile(t, "list", m)},
	} {
		if _, stderr, err := importTo(t, args...); err != nil || !strings.Contains(stderr, "(nginx): 3 identifiers") {
			t.Errorf("import %v: %v\n%s", args, err, stderr)
		}
	}

	// Read as a RewriteMap on purpose, each line is refused.
	_, stderr, err = importTo(t, "--format", "rewritemap", path)
	if err == nil || !strings.Contains(stderr, path+`:2: the line ends with ";", as an nginx map line does, not a RewriteMap one: read the file with --format nginx`) {
		t.Errorf("rewritemap: %v\n%s", err, stderr)
	}

	// A real RewriteMap named .map is still one.
	rw := testkit.WriteFile(t, "old.map", "# RewriteMap\nark:12345/m2 /objects/m2.html\n")
	if _, stderr, err := importTo(t, rw); err != nil || !strings.Contains(stderr, "(rewritemap): 1 identifier") {
		t.Errorf("RewriteMap .map: %v\n%s", err, stderr)
	}

	// A configuration that includes it says how to import it; an
	// escape is read as nginx reads it.
	conf := testkit.WriteFile(t, "site.conf", "map $uri $t {\n  include arks.map;\n}\n")
	_, stderr, err = importTo(t, conf)
	if err == nil || !strings.Contains(stderr, conf+`:2: include: not followed; import the included file on its own, with --format nginx`) {
		t.Errorf("include: %v\n%s", err, stderr)
	}
	esc := testkit.WriteFile(t, "esc.conf", "map $uri $t {\n  /ark:12345/m3 https://repo.example.org/it\\'s;\n}\n")
	out, stderr, err = importTo(t, esc)
	if data, _ := os.ReadFile(out); err != nil || !strings.Contains(string(data), `"target":"https://repo.example.org/it's"`) {
		t.Errorf("escaped ;: %v\n%s\n%s", err, stderr, data)
	}

	// A file of map lines holds no blocks.
	bad := testkit.WriteFile(t, "bad.map", "/ark:12345/m4 /m4;\nserver { listen 80; }\n")
	if _, stderr, err := importTo(t, bad); err == nil || !strings.Contains(stderr, `line 2: "{" in a file of map lines`) {
		t.Errorf("block in map lines: %v\n%s", err, stderr)
	}
}
