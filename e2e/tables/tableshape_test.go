package tables

import (
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// A table exported by a spreadsheet starts with a byte order mark; it
// loads. A file of another shape is refused with what a table is and what
// the file holds instead.
func TestTableShapesForPeopleMigratingData(t *testing.T) {
	bom := testkit.WriteFile(t, "bom.json", "\uFEFF{\"entries\": [{\"id\": \"ark:12345/x\", \"target\": \"https://e.org/x\"}]}")
	s := caddytest.StartSite(t, "ark {\n\ttable "+bom+"\n}")
	s.ExpectRedirects(map[string]string{"/ark:12345/x": "https://e.org/x"})

	const format = `a table is a JSON object {"entries": [...]} holding a list of entries, and nothing else`
	for name, tc := range map[string]struct{ table, want string }{
		"bare array":   {`[{"id": "ark:12345/x", "target": "/x"}]`, ":1: found a list, not an object: " + format + `; write the list as the value of "entries"`},
		"empty object": {`{}`, ":1: found an empty object {}: " + format},
		"other key":    {`{"rows": []}`, `:1: found the key "rows": ` + format},
		"extra key":    {"{\"entries\": [],\n\"version\": 2}", `:2: found the key "version" after "entries": ` + format},
		"not a list":   {`{"entries": {}}`, `:1: "entries" is not a list: ` + format},
		"empty file":   {``, ":1: the file is empty: " + format},
		"csv":          {"id,target\nark:12345/x,https://e.org/x\n", ":1: found 'i', not an object: " + format + "; a CSV or TSV file, an Apache RewriteMap or nginx map blocks become a table with `caddy ark import <file>` (see docs/importing.md)"},
	} {
		path := testkit.WriteFile(t, "t.json", tc.table)
		err := (&caddytest.Site{T: t}).Load("ark {\n\ttable " + path + "\n}")
		if err == nil || !strings.Contains(err.Error(), path+tc.want) {
			t.Errorf("%s: got %v, want %q", name, err, path+tc.want)
		}
	}
}

// A map that conflicts with a table entry is named by its Caddyfile file
// and line, not by its place in the JSON config.
func TestAMapConflictingWithATableNamesItsLine(t *testing.T) {
	tablePath := testkit.WriteFile(t, "t.json", `{"entries": [{"id": "ark:12345/x", "target": "https://e.org/x"}]}`)
	firstLine := strings.Count(caddytest.GlobalOptions+"\n:1 {\n\tbind 127.0.0.1\n", "\n") + 1
	err := (&caddytest.Site{T: t}).Load("ark {\n\ttable " + tablePath + "\n\tmap ark:12345/y /y\n\tmap ark:12345/x /elsewhere\n}")
	want := fmt.Sprintf("/Caddyfile:%d: id \"ark:12345/x\" is ark:12345/x, already assigned by %s with a different target", firstLine+3, tablePath)
	if err == nil || !strings.Contains(err.Error(), "the map at /") || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "entries[") {
		t.Errorf("got %v, want %q", err, want)
	}
}

// caddy ark check counts in the singular and plural right, and says so
// when a table is empty.
func TestCheckCountsInWords(t *testing.T) {
	one := testkit.WriteFile(t, "one.json", `{"entries": [{"id": "urn:nbn:de:101-2024", "target": "https://repo.example.org/t"}]}`)
	empty := testkit.WriteFile(t, "empty.json", `{"entries": []}`)
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{one}, one + ": 1 identifier\nok: 1 identifier (1 URN): 0 in place, 1 redirected, 0 related (303), 0 withdrawn (410)\n"},
		{[]string{empty}, empty + ": 0 identifiers\nok: no identifiers: the table is empty ({\"entries\": []})\n"},
	} {
		out, errOut, status := caddytest.RunCaddy(t, "", append([]string{"ark", "check"}, tc.files...)...)
		if status != 0 || out != tc.want {
			t.Errorf("%v: status %d, stdout:\n%s\nwant:\n%s\nstderr: %s", tc.files, status, out, tc.want, errOut)
		}
	}
}
