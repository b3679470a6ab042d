package ark

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// everyField is a table with every field an entry has, in every form:
// passthrough false, metadata (empty too), 410 with and without a target,
// URNs, every status, and spellings that normalize.
const everyField = `{"entries": [
{"id": "ark:/12345/x5-wf6789", "target": "https://repo.example.org/x?a=1&b=<2>"},
{"id": "ark:12345/p1", "target": "/objects/p1.html", "passthrough": false, "meta": {"who": "Künze, A.", "what": "say \"hi\"\n", "when": "2024"}},
{"id": "ark:12345/e", "target": "/e", "meta": {}},
{"id": "ark:12345/g", "status": 410},
{"id": "ark:12345/g2", "target": "https://repo.example.org/gone", "status": 410},
{"id": "ark:12345/r", "target": "https://repo.example.org/r", "status": 303, "passthrough": true},
{"id": "ark:12345/t", "target": "https://repo.example.org/t", "status": 307},
{"id": "ark:67890/s", "target": "/s", "status": 200},
{"id": "URN:NBN:de:101-2024", "target": "https://repo.example.org/urn"},
{"id": "ark:12345/x5wf6789", "target": "https://repo.example.org/x?a=1&b=<2>"}
]}
`

// exportedEveryField is what export writes for everyField: normal forms,
// explicit statuses, the duplicate dropped.
const exportedEveryField = `{"entries": [
{"id":"ark:12345/x5wf6789","target":"https://repo.example.org/x?a=1&b=<2>","status":302},
{"id":"ark:12345/p1","target":"/objects/p1.html","status":200,"passthrough":false,"meta":{"what":"say \"hi\"\n","when":"2024","who":"Künze, A."}},
{"id":"ark:12345/e","target":"/e","status":200,"meta":{}},
{"id":"ark:12345/g","status":410},
{"id":"ark:12345/g2","target":"https://repo.example.org/gone","status":410},
{"id":"ark:12345/r","target":"https://repo.example.org/r","status":303},
{"id":"ark:12345/t","target":"https://repo.example.org/t","status":307},
{"id":"ark:67890/s","target":"/s","status":200},
{"id":"urn:nbn:de:101-2024","target":"https://repo.example.org/urn","status":302}
]}
`

// compileFile compiles the JSON content into a compiled table and returns
// its path.
func compileFile(t *testing.T, content string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "table.arkt")
	if _, err := compileTables([]string{writeFile(t, "src.json", content)}, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCompileThenExportRoundTripsExactly(t *testing.T) {
	compiled := compileFile(t, everyField)
	var out strings.Builder
	if err := exportTable(compiled, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != exportedEveryField {
		t.Fatalf("export:\n%s\nwant:\n%s", out.String(), exportedEveryField)
	}
	var again strings.Builder
	if err := exportTable(compileFile(t, out.String()), &again); err != nil {
		t.Fatal(err)
	}
	if again.String() != out.String() {
		t.Errorf("compiling the export again exports:\n%s", again.String())
	}

	// Every key answers as the heap table does, and what all yields is
	// the heap table's, in the same order.
	heap, err := loadTable([]string{writeFile(t, "h.json", everyField)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := openCompiledTable(compiled, true)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k, want := range heap.all() {
		keys = append(keys, k)
		got, ok := ct.lookup(k)
		if !ok || !sameAssignment(got, want) || (got.meta == nil) != (want.meta == nil) {
			t.Errorf("%s: %+v %v, want %+v", k, got, ok, want)
		}
	}
	var compiledKeys []string
	for k := range ct.all() {
		compiledKeys = append(compiledKeys, k)
	}
	if fmt.Sprint(keys) != fmt.Sprint(compiledKeys) || ct.len() != heap.len() {
		t.Errorf("keys %v, want %v", compiledKeys, keys)
	}
	if got, want := ct.naanList(), heap.naanList(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("naans %v, want %v", got, want)
	}
}

// Damage anywhere is an error at open, at check or with verify, or a
// record that reads as unreadable: never a wrong answer.
func TestDamagedCompiledTablesAreRefused(t *testing.T) {
	good, err := os.ReadFile(compileFile(t, everyField))
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
		"header only":         good[:compiledHeaderSize],
		"shorter than header": good[:40],
		"header byte":         flip(20),
		"checksum byte":       flip(84),
	} {
		if _, err := openCompiledTable(write(data), false); !errors.Is(err, errDamaged) {
			t.Errorf("%s: open: %v", name, err)
		}
	}
	newer := []byte(string(good))
	newer[8] = 2
	if _, err := openCompiledTable(write(newer), false); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("version 2: %v", err)
	}

	// A byte of the arena: open succeeds, the record reads as unreadable
	// (never as absent: the key asked for may be the one it holds), and
	// check and verify refuse the file.
	arenaOff := int(compiledHeaderSize + 16*compiledSlotSize + 9*compiledRecordSize)
	path := write(flip(arenaOff + 3)) // in the first record's key
	ct, err := openCompiledTable(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := ct.lookup("ark:12345/x5wf6789"); !ok || a != unreadable {
		t.Errorf("a damaged record: %+v, %v; want unreadable", a, ok)
	}
	if a, ok := ct.lookup("ark:12345/p1"); !ok || a.target != "/objects/p1.html" {
		t.Errorf("an intact record: %+v %v", a, ok)
	}
	if err := ct.check(); !errors.Is(err, errDamaged) {
		t.Errorf("check: %v", err)
	}
	if _, err := openCompiledTable(path, true); !errors.Is(err, errDamaged) {
		t.Errorf("verify: %v", err)
	}
	if err := exportTable(path, &strings.Builder{}); !errors.Is(err, errDamaged) {
		t.Errorf("export: %v", err)
	}
}

// Compiled tables and JSON tables cannot be mixed in one handler: the
// files are to be compiled together.
func TestCompiledTableMustBeTheOnlyTableFile(t *testing.T) {
	compiled := compileFile(t, everyField)
	other := writeFile(t, "other.json", `{"entries": []}`)
	if _, err := openTables([]string{other, compiled}, nil, false); err == nil || !strings.Contains(err.Error(), "compile all the files together") {
		t.Errorf("got %v", err)
	}
}

// Inline entries go on top of a compiled table: the same assignment again
// is fine, another one is refused naming the compiled file.
func TestInlineEntriesOnACompiledTable(t *testing.T) {
	compiled := compileFile(t, everyField)
	tb, err := openTables([]string{compiled}, []Entry{
		{ID: "ark:12345/x5-wf6789", Target: "https://repo.example.org/x?a=1&b=<2>"},
		{ID: "ark:55555/new", Target: "/new"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := tb.lookup("ark:55555/new"); !ok || a.target != "/new" {
		t.Errorf("inline: %+v %v", a, ok)
	}
	if a, ok := tb.lookup("ark:12345/p1"); !ok || a.passthrough {
		t.Errorf("compiled: %+v %v", a, ok)
	}
	n := 0
	for range tb.all() {
		n++
	}
	if tb.len() != 10 || n != 10 || fmt.Sprint(tb.naanList()) != "[12345 55555 67890]" {
		t.Errorf("len %d, all %d, naans %v", tb.len(), n, tb.naanList())
	}
	_, err = openTables([]string{compiled}, []Entry{{ID: "ark:12345/p-1", Target: "/other", Source: "Caddyfile:7"}}, false)
	if err == nil || !strings.Contains(err.Error(), "the map at Caddyfile:7") || !strings.Contains(err.Error(), "already assigned by "+compiled) {
		t.Errorf("conflict: %v", err)
	}
}

// A compiled table serves through Caddy as its JSON would, and a new
// version renamed over it is swapped in by watch.
func TestCaddyServesAndSwapsACompiledTable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "arks.arkt")
	compileVersion := func(v int) {
		src := writeFile(t, fmt.Sprintf("v%d.json", v), tableJSON(t,
			Entry{ID: "ark:12345/x5wf6789", Target: fmt.Sprintf("https://repo.example.org/v%d", v)},
			Entry{ID: "ark:12345/in", Target: "/in.txt", Meta: map[string]string{"who": "W"}}))
		if _, err := compileTables([]string{src}, path); err != nil {
			t.Fatal(err)
		}
	}
	compileVersion(1)
	root := testRoot(t)
	if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("served in place"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startOpsSite(t, "root * "+root+"\nark {\n\ttable "+path+"\n\twatch 100ms\n\tverify_tables\n\tforeign 404\n}\nfile_server")
	if got := s.get("/ark:/12345/x5-wf6789"); got.status != http.StatusFound || got.location != "https://repo.example.org/v1" {
		t.Fatalf("v1: %d %q", got.status, got.location)
	}
	if got := s.get("/ark:12345/in"); got.status != http.StatusOK || got.body != "served in place" {
		t.Errorf("in place: %d %q", got.status, got.body)
	}
	if got := s.get("/ark:12345/in?info"); !strings.Contains(got.body, "who: W") {
		t.Errorf("?info: %q", got.body)
	}
	if got := s.get("/ark:12345/nope"); got.status != http.StatusNotFound {
		t.Errorf("absent: %d", got.status)
	}
	compileVersion(2)
	testkit.WaitFor(t, "the swap", func() bool { return len(logEntries(t, s.log, swappedIn)) == 1 })
	if got := s.get("/ark:12345/x5wf6789"); got.location != "https://repo.example.org/v2" {
		t.Errorf("v2: %q", got.location)
	}

	// A damaged version is refused by verify_tables; v2 keeps serving.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-10] ^= 1
	replaceFile(t, path, string(data))
	testkit.WaitFor(t, "the refusal", func() bool { return len(logEntries(t, s.log, notReloaded)) == 1 })
	if got := s.get("/ark:12345/x5wf6789"); got.location != "https://repo.example.org/v2" {
		t.Errorf("after a damaged version: %q", got.location)
	}
}

// damagedTableLog is the message logged when a lookup first finds a
// compiled table damaged.
const damagedTableLog = "compiled table damaged or changed in place while mapped: identifiers it may hold answer 503 until a good file is renamed over it and reloaded"

// A compiled table changed in place while Caddy serves it (a record
// damaged, then the file truncated) answers the identifiers it can no
// longer read 503 with Retry-After, never 404 or a crash; the rest of the
// table keeps answering until the truncation, the first damage is logged
// with the file, and every such lookup is counted.
func TestCaddyAnswers503ForACompiledTableDamagedInPlace(t *testing.T) {
	path := compileFile(t, everyField)
	s := startOpsSite(t, "ark {\n\ttable "+path+"\n\tforeign 404\n}")
	if got := s.get("/ark:12345/x5wf6789"); got.status != http.StatusFound {
		t.Fatalf("before the damage: %d %s", got.status, got.body)
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
		got := s.get(path)
		if got.status != http.StatusServiceUnavailable || got.header.Get("Retry-After") == "" || !strings.Contains(got.body, "its table file is damaged") {
			t.Errorf("%s: %d Retry-After %q %q; want 503 saying the table is damaged", path, got.status, got.header.Get("Retry-After"), got.body)
		}
	}
	unreadableAnswer("/ark:12345/x5wf6789")
	unreadableAnswer("/ark:/12345/x5-wf6789") // through the cache's path too
	if got := s.get("/ark:12345/t"); got.status != http.StatusTemporaryRedirect {
		t.Errorf("an undamaged record of the damaged file: %d %s", got.status, got.body)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	unreadableAnswer("/ark:12345/t")
	unreadableAnswer("/ark:12345/nope")

	testkit.WaitFor(t, "the damage to be logged", func() bool { return len(logEntries(t, s.log, damagedTableLog)) > 0 })
	if logged := logEntries(t, s.log, damagedTableLog); len(logged) != 1 || logged[0]["file"] != path {
		t.Errorf("logged %d times: %v; want once, with the file", len(logged), logged)
	}
	if n := s.metrics()["caddy_ark_table_damaged_total"]; n < 4 {
		t.Errorf("caddy_ark_table_damaged_total %v, want at least 4", n)
	}
}

func TestBinaryCompileExportCheck(t *testing.T) {
	src := writeFile(t, "src.json", everyField)
	out := filepath.Join(t.TempDir(), "t.arkt")
	stdout, errOut, status := runCaddy(t, "", "ark", "compile", src, "-o", out)
	if status != 0 || !strings.HasPrefix(stdout, out+": 9 identifiers from 10 entries (1 duplicates dropped), ") {
		t.Fatalf("compile: status %d, %q %q", status, stdout, errOut)
	}
	stdout, errOut, status = runCaddy(t, "", "ark", "export", out)
	if status != 0 || stdout != exportedEveryField {
		t.Errorf("export: status %d, %q %q", status, stdout, errOut)
	}
	// export is also the API's: it takes a file or --api, exactly one.
	for _, args := range [][]string{{"ark", "export"}, {"ark", "export", out, "--api", "http://127.0.0.1:1/api"}} {
		if _, errOut, status := runCaddy(t, "", args...); status != 1 || !strings.Contains(errOut, "either a compiled table file or --api") {
			t.Errorf("%v: status %d, %q", args, status, errOut)
		}
	}
	stdout, errOut, status = runCaddy(t, "", "ark", "check", out)
	want := out + ": compiled table, checksum ok, 9 identifiers\n" +
		"ok: 9 identifiers (8 ARKs under NAANs 12345, 67890; 1 URN): 3 in place, 3 redirected, 1 related (303), 2 withdrawn (410)\n"
	if status != 0 || stdout != want {
		t.Errorf("check: status %d, %q, want %q; %q", status, stdout, want, errOut)
	}
	conflict := writeFile(t, "c.json", `{"entries": [{"id": "ark:12345/p-1", "target": "/other"}]}`)
	_, errOut, status = runCaddy(t, "", "ark", "compile", src, conflict, "-o", out)
	if status != 1 || !strings.Contains(errOut, conflict+":1: entry 0: id \"ark:12345/p-1\" is ark:12345/p1, already assigned by "+src+" entry 1 with a different target") {
		t.Errorf("conflict: status %d, %q", status, errOut)
	}
	if _, _, status = runCaddy(t, "", "ark", "compile", src); status != 1 {
		t.Errorf("no -o: status %d", status)
	}
	if got, _ := os.ReadDir(filepath.Dir(out)); len(got) != 1 {
		t.Errorf("files left next to the output: %v", got)
	}
}

// A compiled file truncated while mapped (copied over in place rather
// than renamed) makes lookups answer unreadable and check fail; it never
// crashes the process with SIGBUS.
func TestCompiledTableTruncatedWhileMapped(t *testing.T) {
	path := compileFile(t, everyField)
	ct, err := openCompiledTable(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if a, ok := ct.lookup("ark:12345/p1"); !ok || a != unreadable {
		t.Errorf("a lookup in a truncated file: %+v, %v; want unreadable", a, ok)
	}
	if err := ct.check(); !errors.Is(err, errDamaged) {
		t.Errorf("check: %v", err)
	}
}
