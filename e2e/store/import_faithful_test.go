package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// importTo runs `caddy ark import -o <table> args...` and returns the
// table file, its stderr and the error.
func importTo(t *testing.T, args ...string) (out, stderr string, err error) {
	t.Helper()
	out = filepath.Join(t.TempDir(), "arks.json")
	stdout, stderr, err := caddytest.RunArkCommand(t, "", append([]string{"import", "-o", out}, args...)...)
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

// EZID's _created and _updated, written as ISO 8601 (EZID's download
// with timestamps converted), were dropped without a word: only seconds
// were read, and _updated was left out. Both are kept as EZID keeps them,
// Unix seconds under their own names (ISO 8601 converted, no time of day
// lost), and ?info shows _created as erc-support's when; a value that is
// neither is refused with its line.
func TestImportEZIDDates(t *testing.T) {
	csv := testkit.WriteFile(t, "ezid.csv", "_id,_target,_status,_created,_updated,erc.who\n"+
		"ark:/12345/fk3a1,https://repo.example.org/a1,public,2024-05-01T10:20:30Z,2025-01-02T03:04:05Z,Example Museum\n"+
		"ark:/12345/fk3b2,https://repo.example.org/b2,public,1714558830,1735787045,\n"+
		"ark:/12345/fk3c3,https://repo.example.org/c3,public,2024-05-01,,\n")
	out, stderr, err := importTo(t, csv)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	data, _ := os.ReadFile(out)
	want := `{"entries": [
	{"id":"ark:12345/fk3a1","target":"https://repo.example.org/a1","status":302,"meta":{"_created":"1714558830","_updated":"1735787045","erc.who":"Example Museum"}},
	{"id":"ark:12345/fk3b2","target":"https://repo.example.org/b2","status":302,"meta":{"_created":"1714558830","_updated":"1735787045"}},
	{"id":"ark:12345/fk3c3","target":"https://repo.example.org/c3","status":302,"meta":{"_created":"1714521600"}}
]}
`
	if string(data) != want {
		t.Errorf("table:\n%s\nwant:\n%s", data, want)
	}
	s := caddytest.StartSite(t, `
	ark {
		naan 12345
		table `+out+`
	}`)
	info := s.Get("/ark:12345/fk3a1?info").Body
	for _, line := range []string{"erc-support:\nwho: ", "when: 2024-05-01T10:20:30Z\n", "_created: 1714558830\n", "_updated: 1735787045\n"} {
		if !strings.Contains(info, line) {
			t.Errorf("?info lacks %q:\n%s", line, info)
		}
	}

	for in, want := range map[string]string{
		"_id,_target,_created\nark:/12345/fk3d4,/d4,May 1 2024\n": `:2: ark:/12345/fk3d4: _created "May 1 2024": neither seconds since 1970 nor an ISO 8601 date-time`,
		"_id,_target,_updated\nark:/12345/fk3e5,/e5,2024-13-01\n": `:2: ark:/12345/fk3e5: _updated "2024-13-01": neither`,
		"_id,_target,_id\nark:/12345/fk3f6,/f6,x\n":               `:1: the header row names "_id" twice (columns 1 and 3)`,
	} {
		path := testkit.WriteFile(t, "d.csv", in)
		if _, stderr, err := importTo(t, path); err == nil || !strings.Contains(stderr, path+want) {
			t.Errorf("%q: %v\n%s\nwant %s", in, err, stderr, want)
		}
	}
}

// Latin-1 input was read as UTF-8: each accented letter became U+FFFD in
// the table, and the import said done. Input that is not UTF-8 is refused
// with its line; --encoding latin1 reads it as Latin-1.
func TestImportEncoding(t *testing.T) {
	latin1 := "id,target,who\nark:/12345/l1a,/l1a.html,Mus\xe9e\nark:/12345/l1b,https://repo.example.org/b,M\xfcller & S\xf8n\n"
	path := testkit.WriteFile(t, "latin1.csv", latin1)
	_, stderr, err := importTo(t, path)
	want := path + ":2: byte 0xE9 (column 29) is not UTF-8: the source is refused rather than read with a replacement character; if it is Latin-1 (ISO-8859-1), give --encoding latin1\n" +
		"Error: " + path + ": 1 problem: the table was not completed\n"
	if err == nil || stderr != want {
		t.Errorf("not UTF-8: %v\n%s\nwant:\n%s", err, stderr, want)
	}

	out, stderr, err := importTo(t, "--encoding", "latin1", path)
	if err != nil {
		t.Fatalf("latin1: %v\n%s", err, stderr)
	}
	data, _ := os.ReadFile(out)
	if !strings.Contains(string(data), `"who":"Musée"`) || !strings.Contains(string(data), `"who":"Müller & Søn"`) {
		t.Errorf("latin1 table:\n%s", data)
	}
	s := caddytest.StartSite(t, `
	ark {
		naan 12345
		table `+out+`
	}`)
	if info := s.Get("/ark:12345/l1b?info").Body; !strings.Contains(info, "who: Müller & Søn\n") {
		t.Errorf("?info:\n%s", info)
	}

	// UTF-8 (the default, or said), with a character cut by no read.
	utf8 := testkit.WriteFile(t, "utf8.csv", "id,target,who\nark:/12345/u1,/u1,Musée Søn 北京\n")
	for _, args := range [][]string{{utf8}, {"--encoding", "utf-8", utf8}} {
		out, stderr, err := importTo(t, args...)
		if data, _ := os.ReadFile(out); err != nil || !strings.Contains(string(data), `"who":"Musée Søn 北京"`) {
			t.Errorf("%v: %v\n%s\n%s", args, err, stderr, data)
		}
	}

	// In every format, and where the rows are not: a comment.
	for name, in := range map[string]string{
		"a.tsv":  "ark:/12345/a\t/a\nark:/12345/b\t/b\xff\n",
		"a.txt":  "ark:/12345/a /a\nark:/12345/b /b\xff\n",
		"a.conf": "map $uri $t {\n  # caf\xe9\n}\n",
	} {
		path := testkit.WriteFile(t, name, in)
		if _, stderr, err := importTo(t, path); err == nil || !strings.Contains(stderr, path+":2: byte 0x") {
			t.Errorf("%s: %v\n%s", name, err, stderr)
		}
	}
	if _, stderr, err := importTo(t, "--encoding", "ebcdic", path); err == nil || !strings.Contains(stderr, `--encoding must be utf-8 or latin1 (iso-8859-1), not "ebcdic"`) {
		t.Errorf("ebcdic: %v\n%s", err, stderr)
	}
}

// Each line left out on purpose printed a line of its own (an EZID
// download with a thousand reserved identifiers printed a thousand); the
// summary counts them by reason, and --verbose lists them.
func TestImportSkippedLinesCounted(t *testing.T) {
	var b strings.Builder
	b.WriteString("_id,_target,_status\nark:/12345/s1,/s1,public\n")
	for _, id := range []string{"s2", "s3", "s4"} {
		b.WriteString("ark:/12345/" + id + ",/" + id + ",reserved\n")
	}
	b.WriteString("ark:/12345/s-1,/s1,public\n")
	path := testkit.WriteFile(t, "ezid.csv", b.String())
	out, stderr, err := importTo(t, path)
	want := path + " (csv): 1 identifier (1 line repeating an earlier one left out), 3 lines skipped (3 reserved in EZID: a table has no reserved state; import into a store to keep it; --verbose lists them), written to " + out + "\n"
	if err != nil || stderr != want {
		t.Errorf("%v\n%s\nwant:\n%s", err, stderr, want)
	}
	out, stderr, err = importTo(t, "--verbose", path)
	want = path + ":3: skipped: ark:/12345/s2: reserved in EZID: a table has no reserved state; import into a store to keep it\n" +
		path + ":4: skipped: ark:/12345/s3: reserved in EZID: a table has no reserved state; import into a store to keep it\n" +
		path + ":5: skipped: ark:/12345/s4: reserved in EZID: a table has no reserved state; import into a store to keep it\n" +
		path + ":6: left out: ark:/12345/s-1 repeats an earlier assignment\n" +
		path + " (csv): 1 identifier (1 line repeating an earlier one left out), 3 lines skipped (3 reserved in EZID: a table has no reserved state; import into a store to keep it), written to " + out + "\n"
	if err != nil || stderr != want {
		t.Errorf("--verbose: %v\n%s\nwant:\n%s", err, stderr, want)
	}
}
