package tables

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

func TestCompileThenExportRoundTripsExactly(t *testing.T) {
	compiled := caddytest.CompileFile(t, testkit.EveryField)
	var out strings.Builder
	if err := table.Export(compiled, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != testkit.ExportedEveryField {
		t.Fatalf("export:\n%s\nwant:\n%s", out.String(), testkit.ExportedEveryField)
	}
	var again strings.Builder
	if err := table.Export(caddytest.CompileFile(t, out.String()), &again); err != nil {
		t.Fatal(err)
	}
	if again.String() != out.String() {
		t.Errorf("compiling the export again exports:\n%s", again.String())
	}

	// Every key answers as the heap table does, and what all yields is
	// the heap table's, in the same order.
	heap, err := table.Load([]string{testkit.WriteFile(t, "h.json", testkit.EveryField)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := table.OpenCompiled(compiled, true)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k, want := range heap.All() {
		keys = append(keys, k)
		got, ok := ct.Lookup(k)
		if !ok || !table.SameAssignment(got, want) || (got.Meta == nil) != (want.Meta == nil) {
			t.Errorf("%s: %+v %v, want %+v", k, got, ok, want)
		}
	}
	var compiledKeys []string
	for k := range ct.All() {
		compiledKeys = append(compiledKeys, k)
	}
	if fmt.Sprint(keys) != fmt.Sprint(compiledKeys) || ct.Len() != heap.Len() {
		t.Errorf("keys %v, want %v", compiledKeys, keys)
	}
	if got, want := ct.NAANs(), heap.NAANs(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("naans %v, want %v", got, want)
	}
}

// Damage anywhere is an error at open, at check or with verify, or a
// record that reads as unreadable: never a wrong answer.
func TestDamagedCompiledTablesAreRefused(t *testing.T) {
	good, err := os.ReadFile(caddytest.CompileFile(t, testkit.EveryField))
	if err != nil {
		t.Fatal(err)
	}
	write := func(data []byte) string {
		path := filepath.Join(t.TempDir(), "damaged.arkt")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	flip := func(at int) []byte {
		d := []byte(string(good))
		d[at] ^= 0x20
		return d
	}
	for name, data := range map[string][]byte{
		"truncated":           good[:len(good)-1],
		"header only":         good[:table.CompiledHeaderSize],
		"shorter than header": good[:40],
		"header byte":         flip(20),
		"checksum byte":       flip(84),
	} {
		if _, err := table.OpenCompiled(write(data), false); !errors.Is(err, table.ErrDamaged) {
			t.Errorf("%s: open: %v", name, err)
		}
	}
	newer := []byte(string(good))
	newer[8] = 2
	if _, err := table.OpenCompiled(write(newer), false); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("version 2: %v", err)
	}

	// A byte of the arena: open succeeds, the record reads as unreadable
	// (never as absent: the key asked for may be the one it holds), and
	// check and verify refuse the file.
	arenaOff := int(table.CompiledHeaderSize + 16*table.CompiledSlotSize + 9*table.CompiledRecordSize)
	path := write(flip(arenaOff + 3)) // in the first record's key
	ct, err := table.OpenCompiled(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := ct.Lookup("ark:12345/x5wf6789"); !ok || a != table.Unreadable {
		t.Errorf("a damaged record: %+v, %v; want unreadable", a, ok)
	}
	if a, ok := ct.Lookup("ark:12345/p1"); !ok || a.Target != "/objects/p1.html" {
		t.Errorf("an intact record: %+v %v", a, ok)
	}
	if err := ct.Check(); !errors.Is(err, table.ErrDamaged) {
		t.Errorf("check: %v", err)
	}
	if _, err := table.OpenCompiled(path, true); !errors.Is(err, table.ErrDamaged) {
		t.Errorf("verify: %v", err)
	}
	if err := table.Export(path, &strings.Builder{}); !errors.Is(err, table.ErrDamaged) {
		t.Errorf("export: %v", err)
	}
}

// A compiled table serves through Caddy as its JSON would, and a new
// version renamed over it is swapped in by watch.
func TestCaddyServesAndSwapsACompiledTable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "arks.arkt")
	compileVersion := func(v int) {
		src := testkit.WriteFile(t, fmt.Sprintf("v%d.json", v), caddytest.TableJSON(t,
			table.Entry{ID: "ark:12345/x5wf6789", Target: fmt.Sprintf("https://repo.example.org/v%d", v)},
			table.Entry{ID: "ark:12345/in", Target: "/in.txt", Meta: map[string]string{"who": "W"}}))
		if _, err := table.Compile([]string{src}, path); err != nil {
			t.Fatal(err)
		}
	}
	compileVersion(1)
	root := caddytest.SiteRoot(t)
	if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("served in place"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := caddytest.StartOpsSite(t, "root * "+root+"\nark {\n\ttable "+path+"\n\twatch 100ms\n\tverify_tables\n\tforeign 404\n}\nfile_server")
	if got := s.Get("/ark:/12345/x5-wf6789"); got.Status != http.StatusFound || got.Location != "https://repo.example.org/v1" {
		t.Fatalf("v1: %d %q", got.Status, got.Location)
	}
	if got := s.Get("/ark:12345/in"); got.Status != http.StatusOK || got.Body != "served in place" {
		t.Errorf("in place: %d %q", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/in?info"); !strings.Contains(got.Body, "who: W") {
		t.Errorf("?info: %q", got.Body)
	}
	if got := s.Get("/ark:12345/nope"); got.Status != http.StatusNotFound {
		t.Errorf("absent: %d", got.Status)
	}
	compileVersion(2)
	testkit.WaitFor(t, "the swap", func() bool { return len(caddytest.LogEntries(t, s.Log, swappedIn)) == 1 })
	if got := s.Get("/ark:12345/x5wf6789"); got.Location != "https://repo.example.org/v2" {
		t.Errorf("v2: %q", got.Location)
	}

	// A damaged version is refused by verify_tables; v2 keeps serving.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-10] ^= 1
	testkit.ReplaceFile(t, path, string(data))
	testkit.WaitFor(t, "the refusal", func() bool { return len(caddytest.LogEntries(t, s.Log, notReloaded)) == 1 })
	if got := s.Get("/ark:12345/x5wf6789"); got.Location != "https://repo.example.org/v2" {
		t.Errorf("after a damaged version: %q", got.Location)
	}
}

// A compiled table changed in place while Caddy serves it (a record
// damaged, then the file truncated) answers the identifiers it can no
// longer read 503 with Retry-After, never 404 or a crash; the rest of the
// table keeps answering until the truncation, the first damage is logged
// with the file, and every such lookup is counted.
func TestCaddyAnswers503ForACompiledTableDamagedInPlace(t *testing.T) {
	path := caddytest.CompileFile(t, testkit.EveryField)
	s := caddytest.StartOpsSite(t, "ark {\n\ttable "+path+"\n\tforeign 404\n}")
	if got := s.Get("/ark:12345/x5wf6789"); got.Status != http.StatusFound {
		t.Fatalf("before the damage: %d %s", got.Status, got.Body)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte("https://repo.example.org/x?"))
	if at < 0 {
		t.Fatal("no target in the compiled file")
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("H"), int64(at)); err != nil { // in place: the mapping sees it
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	unreadableAnswer := func(path string) {
		t.Helper()
		got := s.Get(path)
		if got.Status != http.StatusServiceUnavailable || got.Header.Get("Retry-After") == "" || !strings.Contains(got.Body, "its table file is damaged") {
			t.Errorf("%s: %d Retry-After %q %q; want 503 saying the table is damaged", path, got.Status, got.Header.Get("Retry-After"), got.Body)
		}
	}
	unreadableAnswer("/ark:12345/x5wf6789")
	unreadableAnswer("/ark:/12345/x5-wf6789") // through the cache's path too
	if got := s.Get("/ark:12345/t"); got.Status != http.StatusTemporaryRedirect {
		t.Errorf("an undamaged record of the damaged file: %d %s", got.Status, got.Body)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	unreadableAnswer("/ark:12345/t")
	unreadableAnswer("/ark:12345/nope")

	testkit.WaitFor(t, "the damage to be logged", func() bool { return len(caddytest.LogEntries(t, s.Log, testkit.DamagedTableLog)) > 0 })
	if logged := caddytest.LogEntries(t, s.Log, testkit.DamagedTableLog); len(logged) != 1 || logged[0]["file"] != path {
		t.Errorf("logged %d times: %v; want once, with the file", len(logged), logged)
	}
	if n := s.Metrics()["caddy_ark_table_damaged_total"]; n < 4 {
		t.Errorf("caddy_ark_table_damaged_total %v, want at least 4", n)
	}
}

func TestBinaryCompileExportCheck(t *testing.T) {
	src := testkit.WriteFile(t, "src.json", testkit.EveryField)
	out := filepath.Join(t.TempDir(), "t.arkt")
	stdout, errOut, status := caddytest.RunCaddy(t, "", "ark", "compile", src, "-o", out)
	if status != 0 || !strings.HasPrefix(stdout, out+": 9 identifiers from 10 entries (1 duplicates dropped), ") {
		t.Fatalf("compile: status %d, %q %q", status, stdout, errOut)
	}
	stdout, errOut, status = caddytest.RunCaddy(t, "", "ark", "export", out)
	if status != 0 || stdout != testkit.ExportedEveryField {
		t.Errorf("export: status %d, %q %q", status, stdout, errOut)
	}
	// export is also the API's: it takes a file or --api, exactly one.
	for _, args := range [][]string{{"ark", "export"}, {"ark", "export", out, "--api", "http://127.0.0.1:1/api"}} {
		if _, errOut, status := caddytest.RunCaddy(t, "", args...); status != 1 || !strings.Contains(errOut, "either a compiled table file or --api") {
			t.Errorf("%v: status %d, %q", args, status, errOut)
		}
	}
	stdout, errOut, status = caddytest.RunCaddy(t, "", "ark", "check", out)
	want := out + ": compiled table, checksum ok, 9 identifiers\n" +
		"ok: 9 identifiers (8 ARKs under NAANs 12345, 67890; 1 URN): 3 in place, 3 redirected, 1 related (303), 2 withdrawn (410)\n"
	if status != 0 || stdout != want {
		t.Errorf("check: status %d, %q, want %q; %q", status, stdout, want, errOut)
	}
	conflict := testkit.WriteFile(t, "c.json", `{"entries": [{"id": "ark:12345/p-1", "target": "/other"}]}`)
	_, errOut, status = caddytest.RunCaddy(t, "", "ark", "compile", src, conflict, "-o", out)
	if status != 1 || !strings.Contains(errOut, conflict+":1: entry 0: id \"ark:12345/p-1\" is ark:12345/p1, already assigned by "+src+" entry 1 with a different target") {
		t.Errorf("conflict: status %d, %q", status, errOut)
	}
	if _, _, status = caddytest.RunCaddy(t, "", "ark", "compile", src); status != 1 {
		t.Errorf("no -o: status %d", status)
	}
	if got, _ := os.ReadDir(filepath.Dir(out)); len(got) != 1 {
		t.Errorf("files left next to the output: %v", got)
	}
}
