package table

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// compileFile compiles the JSON content into a compiled table and returns
// its path.
func compileFile(t *testing.T, content string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "table.arkt")
	if _, err := Compile([]string{testkit.WriteFile(t, "src.json", content)}, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Compiled tables and JSON tables cannot be mixed in one handler: the
// files are to be compiled together.
func TestCompiledTableMustBeTheOnlyTableFile(t *testing.T) {
	compiled := compileFile(t, testkit.EveryField)
	other := testkit.WriteFile(t, "other.json", `{"entries": []}`)
	if _, err := Open([]string{other, compiled}, nil, false); err == nil || !strings.Contains(err.Error(), "compile all the files together") {
		t.Errorf("got %v", err)
	}
}

// Inline entries go on top of a compiled table: the same assignment again
// is fine, another one is refused naming the compiled file.
func TestInlineEntriesOnACompiledTable(t *testing.T) {
	compiled := compileFile(t, testkit.EveryField)
	tb, err := Open([]string{compiled}, []Entry{
		{ID: "ark:12345/x5-wf6789", Target: "https://repo.example.org/x?a=1&b=<2>"},
		{ID: "ark:55555/new", Target: "/new"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := tb.Lookup("ark:55555/new"); !ok || a.Target != "/new" {
		t.Errorf("inline: %+v %v", a, ok)
	}
	if a, ok := tb.Lookup("ark:12345/p1"); !ok || a.Passthrough {
		t.Errorf("compiled: %+v %v", a, ok)
	}
	n := 0
	for range tb.All() {
		n++
	}
	if tb.Len() != 10 || n != 10 || fmt.Sprint(tb.NAANs()) != "[12345 55555 67890]" {
		t.Errorf("len %d, all %d, naans %v", tb.Len(), n, tb.NAANs())
	}
	_, err = Open([]string{compiled}, []Entry{{ID: "ark:12345/p-1", Target: "/other", Source: "Caddyfile:7"}}, false)
	if err == nil || !strings.Contains(err.Error(), "the map at Caddyfile:7") || !strings.Contains(err.Error(), "already assigned by "+compiled) {
		t.Errorf("conflict: %v", err)
	}
}

// A compiled file truncated while mapped (copied over in place rather
// than renamed) makes lookups (Lookup and LookupIn) answer unreadable and
// check fail; it never crashes the process with SIGBUS.
func TestCompiledTableTruncatedWhileMapped(t *testing.T) {
	path := compileFile(t, testkit.EveryField)
	ct, err := OpenCompiled(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if a, ok := ct.Lookup("ark:12345/p1"); !ok || a != Unreadable {
		t.Errorf("a lookup in a truncated file: %+v, %v; want unreadable", a, ok)
	}
	var room Assignment
	if a, ok := ct.LookupIn("ark:12345/p1", &room); !ok || a != Unreadable {
		t.Errorf("LookupIn in a truncated file: %+v, %v; want unreadable", a, ok)
	}
	if err := ct.Check(); !errors.Is(err, ErrDamaged) {
		t.Errorf("check: %v", err)
	}
}
