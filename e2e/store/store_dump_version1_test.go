package store

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// A store that holds statistics is not dumped as version 1 (the dump
// that older versions of caddy-ark read, which cannot hold them) unless
// the operator says to leave them out: refused, it writes nothing, on
// standard output or in -o's file, and says in one line how many rows
// and what to do. With --without-stats the dump is version 1, the
// version-2 dump without its statistics, byte for byte, says how many
// rows it left out, and loads into a new store that holds the same
// bindings, history and counters. On main, every dump was version 2,
// which older versions refuse: the way back the upgrade log promises
// was gone.
func TestStoreDumpVersion1LeavesStatisticsOutOnlyWhenTold(t *testing.T) {
	s := caddytest.StartAPISite(t, storeMinter+"\n\t\tstats")
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/id/ark:12345/m1", `{"target": "https://repo.example.org/m1", "meta": {"who": "Ada"}}`},
		{"PUT", "/id/ark:12345/m1", `{"target": "/objects/m1.html", "passthrough": false}`},
		{"POST", "/withdraw/ark:12345/m1", `{"reason": "gone"}`},
		{"POST", "/mint/ark:12345/x5?n=2", ""},
	} {
		if got := s.Call(c.method, c.path, "editor", c.body); got.Status >= 300 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, got.Status, got.Body)
		}
	}
	caddytest.ResolveAll(s, t, map[string]int{"/ark:12345/t1": 302, "/ark:12345/m1": 410, "/ark:12345/x5nothere": 404})
	// Caddy lets go of the file, and writes the statistics it holds.
	caddytest.StartSite(t, `respond "elsewhere" 200`)

	full, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", s.DB)
	if status != 0 {
		t.Fatalf("store dump: status %d, %s", status, stderr)
	}
	statLine := regexp.MustCompile(`(?m)^\{"stat":.*\n`)
	rows := len(statLine.FindAllString(full, -1))
	end := regexp.MustCompile(`,"stats":` + strconv.Itoa(rows) + `\}\}\n$`)
	if rows == 0 || !end.MatchString(full) {
		t.Fatalf("the version-2 dump holds no statistics, or does not count them:\n%s", full)
	}
	// What version 1 holds of it: no statistics, and an end line that
	// does not count them.
	want := strings.Replace(statLine.ReplaceAllString(full, ""), `{"format":"caddy-ark store dump","version":2}`, `{"format":"caddy-ark store dump","version":1}`, 1)
	want = end.ReplaceAllString(want, "}}\n")

	dir := t.TempDir()
	out := filepath.Join(dir, "v1.ndjson")
	for _, args := range [][]string{{"--version", "1"}, {"--version", "1", "-o", out}} {
		stdout, stderr, status := caddytest.RunCaddy(t, "", append([]string{"ark", "store", "dump", "--store", s.DB}, args...)...)
		if status == 0 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, "holds "+strconv.Itoa(rows)+" statistics rows, which a dump of version 1 cannot hold") || !strings.Contains(stderr, "--without-stats") {
			t.Errorf("dump %v of a store with statistics: status %d, stdout %q, stderr %q; want it refused in one line naming the rows and --without-stats", args, status, stdout, stderr)
		}
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("a refused dump left %v in the directory of -o", names)
	}

	_, stderr, status = caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", s.DB, "--version", "1", "--without-stats", "-o", out)
	if status != 0 || !strings.Contains(stderr, "(version 1); left out "+strconv.Itoa(rows)+" statistics rows") {
		t.Fatalf("dump --version 1 --without-stats: status %d, %s", status, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("the dump of version 1:\n%s\nwant the version-2 dump without its statistics:\n%s", got, want)
	}
	if stdout, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", s.DB, "--version", "1", "--without-stats"); status != 0 || stdout != want {
		t.Errorf("dump --version 1 --without-stats to standard output: status %d, %s\n%s", status, stderr, stdout)
	}

	// It loads into a new store, which holds what the first did but the
	// statistics.
	loaded := filepath.Join(t.TempDir(), "loaded.db")
	if _, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "load", "--store", loaded, out); status != 0 || !strings.Contains(stderr, "0 statistics rows") {
		t.Fatalf("store load of the version-1 dump: status %d, %s", status, stderr)
	}
	again, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", loaded)
	if wantAgain := end.ReplaceAllString(statLine.ReplaceAllString(full, ""), `,"stats":0}}`+"\n"); status != 0 || again != wantAgain {
		t.Errorf("the store loaded from version 1 dumps (status %d, %s):\n%s\nwant the first store's dump without statistics:\n%s", status, stderr, again, wantAgain)
	}
	if _, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", loaded, "--without-stats"); status == 0 || !strings.Contains(stderr, "--without-stats goes with --version 1") {
		t.Errorf("--without-stats without --version 1: status %d, %s", status, stderr)
	}
	if _, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", loaded, "--version", "3"); status == 0 || !strings.Contains(stderr, "--version 3") {
		t.Errorf("--version 3: status %d, %s", status, stderr)
	}
}

// A store without statistics dumps as version 1 without any flag,
// exactly as the versions before statistics were dumped wrote it: the
// store file that the last version holding JSON wrote dumps the bytes
// that version dumped of it.
func TestStoreDumpVersion1OfAStoreWithoutStatistics(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	path := filepath.Join(t.TempDir(), "format1.db")
	testkit.Gunzip(t, "store/bolt/testdata/format1.db.gz", path)
	want, err := os.ReadFile("store/bolt/testdata/format1.dump")
	if err != nil {
		t.Fatal(err)
	}
	got, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", path, "--version", "1")
	if status != 0 || !strings.Contains(stderr, "dumped 46 bindings, 48 history records, 2 counters (version 1)\n") || strings.Contains(stderr, "left out") {
		t.Fatalf("dump --version 1 of a store without statistics: status %d, %s", status, stderr)
	}
	if got != string(want) {
		t.Errorf("dump --version 1:\n%s\nwant what the version before wrote, store/bolt/testdata/format1.dump:\n%s", got, want)
	}
}
