package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/importer"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// expected is what a real Caddy serving an imported table answers for a
// raw path: an in-place answer shows the path it was rewritten to.
type expected struct {
	status   int
	location string // for redirects
	body     string // for in-place answers: the rewritten path
}

// serveImported loads the table file at path in a real Caddy, with a
// handler after ark that answers with the path an in-place target was
// rewritten to, and checks every answer.
func serveImported(t *testing.T, path string, want map[string]expected) {
	t.Helper()
	s := caddytest.StartSite(t, `
	ark {
		naan 12345
		table `+path+`
	}
	respond "{http.request.uri.path}"`)
	for raw, w := range want {
		got := s.Get(raw)
		if got.Status != w.status || got.Location != w.location || (w.body != "" && got.Body != w.body) {
			t.Errorf("%s: got %d %q %q, want %d %q %q", raw, got.Status, got.Location, got.Body, w.status, w.location, w.body)
		}
	}
}

// Each format is imported from a file written in it, through the command,
// and the table it writes loads in a real Caddy and resolves.
func TestImportEachFormatResolvesInCaddy(t *testing.T) {
	for _, c := range []struct {
		file   string
		stderr string // what the command says, {out} standing for the table file
		want   map[string]expected
	}{
		{
			// A byte order mark, CRLF, no header row, resolver URLs as ids,
			// quoted fields, a repeated line.
			file:   "arks.csv",
			stderr: "testdata/import/arks.csv (csv): 5 identifiers (1 line repeating an earlier one left out), written to {out}\n",
			want: map[string]expected{
				"/ark:12345/x5wf6789":      {status: 200, body: "/objects/x5wf6789.html"},
				"/ark:/12345/x5-abcd":      {status: 302, location: "https://repo.example.org/abcd"},
				"/ark:12345/x5efgh":        {status: 303, location: "https://repo.example.org/efgh"},
				"/ark:12345/g5h6j7":        {status: 410},
				"/ark:12345/k8m2n4":        {status: 307, location: "https://repo.example.org/items/k8m2n4?a=1&b=2"},
				"/ark:12345/not-in-import": {status: 404},
			},
		},
		{
			// EZID's download: header row, other columns, _status.
			file:   "ezid.csv",
			stderr: "testdata/import/ezid.csv (csv): 2 identifiers, 1 line skipped (1 reserved in EZID: a table has no reserved state; import into a store to keep it; --verbose lists them), written to {out}\n",
			want: map[string]expected{
				"/ark:12345/fk2b8c9d": {status: 302, location: "https://repo.example.org/b8c9d"},
				"/ark:12345/fk2c1d2f": {status: 404},
				"/ark:12345/fk2d3f4g": {status: 410},
			},
		},
		{
			file:   "arks.tsv",
			stderr: "testdata/import/arks.tsv (tsv): 3 identifiers, written to {out}\n",
			want: map[string]expected{
				"/ark:12345/t5q6r7":      {status: 200, body: "/objects/t5q6r7.html"},
				"/URN:NBN:de:101-2024":   {status: 200, body: "/theses/2024.pdf"},
				"/ark:/12345/t5s8v9/c-2": {status: 307, location: "https://repo.example.org/t5s8v9/c2"},
			},
		},
		{
			// Comments, a blank line, a tab, a path as key, BOM and CRLF.
			file:   "rewritemap.txt",
			stderr: "testdata/import/rewritemap.txt (rewritemap): 3 identifiers, written to {out}\n",
			want: map[string]expected{
				"/ark:12345/r2b3c4": {status: 200, body: "/objects/r2b3c4.html"},
				"/ark:12345/r2d5f6": {status: 302, location: "https://repo.example.org/r2d5f6"},
				"/ark:12345/r2g7h8": {status: 200, body: "/objects/r2g7h8.html"},
			},
		},
		{
			// A whole nginx.conf: the map block inside http is read, the
			// rest left alone.
			file: "nginx.conf",
			stderr: "testdata/import/nginx.conf:3: default: ignored: a table has no default; identifiers it does not hold get 404, or go to the foreign resolver\n" +
				"testdata/import/nginx.conf:4: hostnames: ignored (it is about nginx's matching)\n" +
				"testdata/import/nginx.conf (nginx): 3 identifiers, written to {out}\n",
			want: map[string]expected{
				"/ark:12345/n3b4c5": {status: 200, body: "/objects/n3b4c5.html"},
				"/ark:12345/n3d6f7": {status: 302, location: "https://repo.example.org/n3d6f7?view=full"},
				"/ark:12345/n3g8h9": {status: 302, location: "https://repo.example.org/n3g8h9"},
			},
		},
	} {
		t.Run(c.file, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "arks.json")
			stdout, stderr, err := caddytest.RunArkCommand(t, "", "import", "-o", out, filepath.Join("testdata/import", c.file))
			if err != nil {
				t.Fatalf("import: %v\nstderr:\n%s", err, stderr)
			}
			if want := strings.ReplaceAll(c.stderr, "{out}", out); stderr != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
			}
			if stdout != "" {
				t.Errorf("stdout %q with -o", stdout)
			}
			serveImported(t, out, c.want)
		})
	}
}

// The table is written with its identifiers in normal form, one entry a
// line, and EZID's elements kept whole, under their own names.
func TestImportWritesNormalForms(t *testing.T) {
	stdout, _, err := caddytest.RunArkCommand(t, "", "import", "testdata/import/ezid.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"entries": [
	{"id":"ark:12345/fk2b8c9d","target":"https://repo.example.org/b8c9d","status":302,"meta":{"_created":"1714521600","dc.title":"Moths","erc.what":"The moth collection","erc.who":"Example Museum"}},
	{"id":"ark:12345/fk2d3f4g","status":410,"meta":{"_created":"1714694400","erc.what":"A photograph, withdrawn","erc.who":"Example Museum","reason":"withdrawn at the rights holder's request"}}
]}
`
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}

// Every bad line and conflict is reported with its line and the loader's
// reason, and then no table is written.
func TestImportReportsEveryProblemAndWritesNothing(t *testing.T) {
	for _, c := range []struct{ file, stderr string }{
		{"bad.csv", `testdata/import/bad.csv:2: id "ark:12345/p-1" is ark:12345/p1, already assigned by testdata/import/bad.csv:1 with a different target ("/objects/p1.html", not "/objects/other.html"): equivalent identifiers cannot be assigned twice
testdata/import/bad.csv:3: permanent redirects (301, 308) are not allowed: the location of an identifier's referent is temporary by nature; use 302, 303 or 307
testdata/import/bad.csv:4: id "ark:12345": not an identifier at byte 9: the ARK has no Name after its NAAN (a pseudo-ARK)
testdata/import/bad.csv:5: target "objects/p3.html": neither a path starting with "/" nor an absolute http(s) URL
testdata/import/bad.csv:6: status "30x" is not a number: use 302, 303, 307, 410, or 200 for a local path
testdata/import/bad.csv:7: 1 field: expected id,target[,status], or a header row naming the columns
Error: testdata/import/bad.csv: 6 problems: the table was not completed
`},
		{"regex.conf", `testdata/import/regex.conf:2: the regular expression key "~^/ark:/12345/(?<n>.+)$" cannot be imported: a table holds exact identifiers (a shoulder template can stand for a pattern: see shoulder in docs/tables.md)
testdata/import/regex.conf:4: the value "/objects/$uri" uses nginx variables, which a table cannot hold
Error: testdata/import/regex.conf: 2 problems: the table was not completed
`},
	} {
		t.Run(c.file, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "arks.json")
			_, stderr, err := caddytest.RunArkCommand(t, "", "import", "-o", out, filepath.Join("testdata/import", c.file))
			if err == nil {
				t.Error("no error")
			}
			if stderr != c.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, c.stderr)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("files left behind: %v", left)
			}

			// On standard output, the table is not closed, so it cannot
			// be loaded by mistake.
			stdout, _, _ := caddytest.RunArkCommand(t, "", "import", filepath.Join("testdata/import", c.file))
			partial := testkit.WriteFile(t, "partial.json", stdout)
			if _, err := table.Load([]string{partial}, nil); err == nil {
				t.Errorf("the output of a failed import loads:\n%s", stdout)
			}
		})
	}
}

// Without --format, the format is taken from the extension, else from the
// first line; and a file that is not one is refused with a reason.
func TestImportGuessesTheFormat(t *testing.T) {
	for _, c := range []struct{ content, format string }{
		{"# old ARKs\n\nark:12345/a /a.html\n", "rewritemap"},
		{"ark:12345/a,/a.html\n", "csv"},
		{"id\ttarget\nark:12345/a\t/a.html\n", "tsv"},
		{"http {\n  map $uri $t {\n    /ark:12345/a /a.html;\n  }\n}\n", "nginx"},
	} {
		path := testkit.WriteFile(t, "list", c.content)
		stdout, stderr, err := caddytest.RunArkCommand(t, "", "import", path)
		if err != nil {
			t.Errorf("%q: %v %s", c.content, err, stderr)
			continue
		}
		if want := path + " (" + c.format + "): 1 identifier\n"; stderr != want {
			t.Errorf("%q: stderr %q, want %q", c.content, stderr, want)
		}
		if want := "{\"entries\": [\n\t{\"id\":\"ark:12345/a\",\"target\":\"/a.html\"}\n]}\n"; stdout != want {
			t.Errorf("%q: stdout %q, want %q", c.content, stdout, want)
		}
	}

	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--format", "pdf", "x"}, `--format must be csv, tsv, rewritemap, nginx, json, anvl, xml or auto, not "pdf"`},
		{[]string{"--format", "nginx", testkit.WriteFile(t, "x.conf", "server { listen 80; }\n")}, "no map block found"},
		{[]string{"--format", "nginx", testkit.WriteFile(t, "y.conf", "map $a $b {\n  /ark:12345/a /a.html;\n")}, "the map block is not closed"},
		{[]string{"--format", "csv", testkit.WriteFile(t, "h.csv", "name,place\nx,y\n")}, "nor a header row naming an id column"},
		{[]string{t.TempDir()}, "not a regular file"},
	} {
		_, stderr, err := caddytest.RunArkCommand(t, "", append([]string{"import"}, c.args...)...)
		if err == nil || !strings.Contains(stderr, c.stderr) {
			t.Errorf("import %v: err %v, stderr %q, want %q", c.args, err, stderr, c.stderr)
		}
	}
}

// The real binary has the command, reads standard input for "-", and
// exits with status 1 on a problem.
func TestBinaryImport(t *testing.T) {
	stdout, stderr, status := caddytest.RunCaddy(t, "https://n2t.net/ark:/12345/x5-wf6789 /objects/x5wf6789.html\n", "ark", "import", "--format", "rewritemap", "-")
	want := "{\"entries\": [\n\t{\"id\":\"ark:12345/x5wf6789\",\"target\":\"/objects/x5wf6789.html\"}\n]}\n"
	if status != 0 || stdout != want || stderr != "stdin (rewritemap): 1 identifier\n" {
		t.Errorf("status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	_, stderr, status = caddytest.RunCaddy(t, "", "ark", "import", "testdata/import/regex.conf")
	if status != 1 || !strings.Contains(stderr, "regex.conf:2: the regular expression key") {
		t.Errorf("status %d, stderr %q", status, stderr)
	}
}

// A conflict names the line of the earlier assignment, counting lines
// that repeat an assignment and were left out.
func TestImportConflictsNameTheEarlierLine(t *testing.T) {
	path := testkit.WriteFile(t, "d.csv", "ark:12345/a,/a\nark:12345/b,/b\nark:12345/a,/a\nark:12345/c,/c\nark:12345/-c,/d\nark:12345/b,/e\n")
	_, stderr, err := caddytest.RunArkCommand(t, "", "import", "-o", filepath.Join(t.TempDir(), "t.json"), path)
	want := path + `:5: id "ark:12345/-c" is ark:12345/c, already assigned by ` + path + `:4 with a different target ("/c", not "/d"): equivalent identifiers cannot be assigned twice
` + path + `:6: id "ark:12345/b" is ark:12345/b, already assigned by ` + path + `:2 with a different target ("/b", not "/e"): equivalent identifiers cannot be assigned twice
Error: ` + path + `: 2 problems: the table was not completed
`
	if err == nil || stderr != want {
		t.Errorf("err %v, stderr:\n%s\nwant:\n%s", err, stderr, want)
	}
}

func importString(t *testing.T, format, in string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	_, err := importer.Convert(bytes.NewReader([]byte(in)), "in", importer.Options{Format: format}, &out, &errOut)
	return out.String(), errOut.String(), err
}

// With a header row, fields beyond the named columns are dropped without a
// word: a status written in a third column is lost (303 becomes 200 in
// place, 307 becomes 302), and an unquoted comma cuts a value.
func TestImportExtraFieldsAfterHeaderRefused(t *testing.T) {
	for _, c := range []struct{ format, in, want string }{
		{"csv", "id,target\nark:/12345/a,/a,303\n", "in:2: 3 fields where the header row (line 1) has 2 columns: name every column"},
		{"csv", "id,target\nark:/12345/b,https://x.example/b,307\n", "in:2: 3 fields where the header row (line 1) has 2 columns"},
		{"csv", "id,target,what\nark:/12345/c,/c,Smith, John\n", `in:2: 4 fields where the header row (line 1) has 3 columns: name every column in the header row, and put a value holding a comma in double quotes`},
		{"tsv", "id\ttarget\nark:/12345/d\t/d\t303\n", "in:2: 3 fields where the header row (line 1) has 2 columns: name every column in the header row; a TSV field cannot hold a tab"},
		// A missing field would shift the values after it.
		{"csv", "id,target,who,what\nark:/12345/e,/e,Title\n", "in:2: 3 fields where the header row (line 1) has 4 columns: every line needs one field per column"},
		{"csv", "id,target,who\nark:/12345/f,/f,W\nark:/12345/g\n", "in:3: 1 field where the header row (line 1) has 3 columns"},
	} {
		out, stderr, err := importString(t, c.format, c.in)
		if err == nil || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: imported as %s, stderr %q; want %s", c.in, out, stderr, c.want)
		}
	}
	// A quoted comma is one field.
	if out, stderr, err := importString(t, "csv", "id,target,who\nark:/12345/h,/h,\"Smith, John\"\n"); err != nil || !strings.Contains(out, `"who":"Smith, John"`) {
		t.Errorf("quoted comma: %v %s %s", err, stderr, out)
	}
}

// Read as CSV with LazyQuotes, a TSV field that opened a quote it never
// closed swallowed every following line into one meta value, and the
// import succeeded.
func TestImportTSVUnclosedQuoteLosesLines(t *testing.T) {
	in := "id\ttarget\twhat\nark:/12345/a\t/a\t\"Quoted title\nark:/12345/b\t/b\tB\nark:/12345/c\t/c\tC\n"
	out, _, err := importString(t, "tsv", in)
	if err == nil && !strings.Contains(out, `"ark:12345/c"`) {
		t.Errorf("lines 3 and 4 lost without a problem: %s", out)
	}

	// TSV has no quoting: a quote is an ordinary character, whether it
	// opens, closes or surrounds a field; CRLF line ends are fine.
	for _, in := range []string{in, strings.ReplaceAll(in, "\n", "\r\n")} {
		out, stderr, err := importString(t, "tsv", in)
		want := "{\"entries\": [\n" +
			"\t{\"id\":\"ark:12345/a\",\"target\":\"/a\",\"meta\":{\"what\":\"\\\"Quoted title\"}},\n" +
			"\t{\"id\":\"ark:12345/b\",\"target\":\"/b\",\"meta\":{\"what\":\"B\"}},\n" +
			"\t{\"id\":\"ark:12345/c\",\"target\":\"/c\",\"meta\":{\"what\":\"C\"}}\n]}\n"
		if err != nil || out != want {
			t.Errorf("%q: %v %s\n%s\nwant\n%s", in, err, stderr, out, want)
		}
	}
	out, stderr, err := importString(t, "tsv", "id\ttarget\twhat\nark:/12345/d\t/d\t\"Say \"\"hi\"\"\"\n\n\"ark:/12345/e\"\t/e\t\n")
	if err == nil || !strings.Contains(out, `{"what":"\"Say \"\"hi\"\"\""}`) ||
		!strings.Contains(stderr, "in:4: id \"\\\"ark:/12345/e\\\"\": not an identifier") {
		t.Errorf("quotes in TSV: %v\n%s\n%s", err, stderr, out)
	}
}

// Two header columns feeding the same meta key (who and erc.who, or who
// twice): one value wins at random (map order), the other is lost.
func TestImportDuplicateMetaColumnsRefused(t *testing.T) {
	for in, want := range map[string]string{
		"id,target,who,erc.who\nark:/12345/a,/a,W1,W2\n": `in:1: the header row names the who metadata twice: "who" (column 3) and "erc.who" (column 4)`,
		"id,target,who,who\nark:/12345/a,/a,W1,W2\n":     `in:1: the header row names the who metadata twice: "who" (column 3) and "who" (column 4)`,
		"id,target,_target\nark:/12345/a,/a,/b\n":        `in:1: the header row names the target column twice: "target" (column 2) and "_target" (column 3)`,
	} {
		out, stderr, err := importString(t, "csv", in)
		if err == nil || !strings.Contains(stderr, want) {
			t.Errorf("%q: imported as %s, stderr %q; want the header refused: %s", in, out, stderr, want)
		}
	}
}
