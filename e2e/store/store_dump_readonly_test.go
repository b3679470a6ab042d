package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// store dump only reads: a store file of format 1 (the JSON of older
// versions, holding a committed import that was not merged yet) dumps, in
// either version, what the version that wrote it dumped, and is left byte
// for byte as it was, with no upgrade logged. On main the dump opened the
// file for writing, which marked it format 2: the dump the docs give for
// going back to an older version made the file unreadable by it.
func TestStoreDumpLeavesAFileOfFormat1AsItWas(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	path := filepath.Join(t.TempDir(), "format1.db")
	testkit.Gunzip(t, "store/bolt/testdata/format1.db.gz", path)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := os.ReadFile("store/bolt/testdata/format1.dump")
	if err != nil {
		t.Fatal(err)
	}
	v2 := strings.Replace(string(v1), `{"format":"caddy-ark store dump","version":1}`, `{"format":"caddy-ark store dump","version":2}`, 1)
	v2 = strings.Replace(v2, `"counters":2}}`, `"counters":2,"stats":0}}`, 1)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--version", "1"}, string(v1)},
		{nil, v2},
		{[]string{"--version", "1"}, string(v1)},
	} {
		got, stderr, status := caddytest.RunCaddy(t, "", append([]string{"ark", "store", "dump", "--store", path}, c.args...)...)
		if status != 0 || strings.Contains(stderr, "upgraded") || !strings.Contains(stderr, "dumped 46 bindings, 48 history records, 2 counters") {
			t.Errorf("dump %v of a file of format 1: status %d, stderr %s", c.args, status, stderr)
		}
		if got != c.want {
			t.Errorf("dump %v of a file of format 1:\n%s\nwant:\n%s", c.args, got, c.want)
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(after, before) {
			t.Fatalf("dump %v changed the store file it read (%d bytes, %d before)", c.args, len(after), len(before))
		}
	}
}

// A bolt file that a running Caddy holds is not dumped: after bbolt's
// lock timeout, store dump says so in one line with what to do instead,
// and writes nothing.
func TestStoreDumpOfAFileThatCaddyHolds(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	out := filepath.Join(t.TempDir(), "dump.ndjson")
	stdout, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", s.DB, "-o", out)
	if status == 0 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "a running Caddy holds") || !strings.Contains(stderr, "caddy ark store backup") {
		t.Errorf("dump of a file Caddy holds: status %d, stdout %q, stderr %q; want one line saying a running Caddy holds it and to dump a backup", status, stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused dump left -o's file: %v", err)
	}
}
