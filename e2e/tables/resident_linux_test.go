package tables

import (
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// With resident_tables, a compiled table's whole mapping is locked in
// memory once it is open, and logged; a config without it maps the table
// again, unlocked, and the locked mapping goes with the old config.
func TestResidentTablesLockTheCompiledTableInMemory(t *testing.T) {
	path := caddytest.CompileFile(t, testkit.EveryField)
	s := caddytest.StartOpsSite(t, "ark {\n\ttable "+path+"\n\tresident_tables\n\tforeign 404\n}")
	testkit.WaitFor(t, "the table kept in memory", func() bool {
		return len(caddytest.LogEntries(t, s.Log, "table kept in memory")) == 1
	})
	size, locked := mappedAndLocked(t, path)
	if size == 0 || locked != size {
		t.Errorf("with resident_tables: %d bytes of %s locked of %d mapped", locked, path, size)
	}
	if got := s.Get("/ark:/12345/x5-wf6789"); got.Status != http.StatusFound {
		t.Errorf("answer: %d %s", got.Status, got.Body)
	}

	if err := s.Load("ark {\n\ttable " + path + "\n\tforeign 404\n}"); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the locked mapping released", func() bool {
		runtime.GC() // the old mapping is released once its table is garbage
		_, locked := mappedAndLocked(t, path)
		return locked == 0
	})
	if size, _ := mappedAndLocked(t, path); size == 0 {
		t.Error("without resident_tables, the table is not mapped")
	}
	if got := s.Get("/ark:/12345/x5-wf6789"); got.Status != http.StatusFound {
		t.Errorf("answer without resident_tables: %d %s", got.Status, got.Body)
	}
	if n := len(caddytest.LogEntries(t, s.Log, "table kept in memory")); n != 1 {
		t.Errorf("%d tables kept in memory, want the first only", n)
	}
}

// A version that watch swaps in is kept in memory too, and the version it
// replaced is unlocked once released.
func TestResidentTablesKeepAWatchedSwapInMemory(t *testing.T) {
	path := caddytest.CompileFile(t, testkit.EveryField)
	s := caddytest.StartOpsSite(t, "ark {\n\ttable "+path+"\n\twatch 100ms\n\tresident_tables\n\tforeign 404\n}")
	testkit.WaitFor(t, "the table kept in memory", func() bool {
		return len(caddytest.LogEntries(t, s.Log, "table kept in memory")) == 1
	})
	data, err := os.ReadFile(caddytest.CompileFile(t, strings.ReplaceAll(testkit.EveryField, `"https://repo.example.org/x?a=1&b=<2>"`, `"https://repo.example.org/v2"`)))
	if err != nil {
		t.Fatal(err)
	}
	testkit.ReplaceFile(t, path, string(data))
	testkit.WaitFor(t, "the new version swapped in and kept in memory", func() bool {
		return len(caddytest.LogEntries(t, s.Log, "table swapped in")) == 1 &&
			len(caddytest.LogEntries(t, s.Log, "table kept in memory")) == 2
	})
	if got := s.Get("/ark:12345/x5wf6789"); got.Location != "https://repo.example.org/v2" {
		t.Fatalf("after the swap: %d %q", got.Status, got.Location)
	}
	testkit.WaitFor(t, "only the new version mapped, all of it locked", func() bool {
		runtime.GC() // the old version is released once its table is garbage
		size, locked := mappedAndLocked(t, path)
		return size > 0 && locked == size && size == pagesOf(len(data))
	})
}

// pagesOf returns n rounded up to whole pages.
func pagesOf(n int) int {
	page := os.Getpagesize()
	return (n + page - 1) / page * page
}

// resident_tables takes no argument.
func TestResidentTablesTakesNoArgument(t *testing.T) {
	_, err := caddytest.AdaptCaddyfile(caddytest.GlobalOptions+"http://127.0.0.1:1 {\n\tark {\n\t\tresident_tables yes\n\t}\n}\n", "Caddyfile")
	if err == nil || !strings.Contains(err.Error(), "after 'yes'") {
		t.Errorf("resident_tables yes: %v", err)
	}
}

// mappedAndLocked returns the bytes of the file at path that this process
// maps, and of those, how many are locked in memory.
func mappedAndLocked(t *testing.T, path string) (size, locked int) {
	t.Helper()
	for _, m := range testkit.Mappings(t) {
		if m.Path == path {
			size += m.Size
			locked += m.Locked
		}
	}
	return size, locked
}
