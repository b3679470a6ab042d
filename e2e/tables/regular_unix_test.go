//go:build unix

package tables

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// A table that is a FIFO, a device or a directory is refused at once, at a
// config load, by watch and by caddy ark check. A FIFO used to hang the
// reload, and the admin API with it, for good.
func TestTablesMustBeRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for path, want := range map[string]string{
		fifo:        fifo + ": not a regular file (a FIFO): a table must be a regular file",
		"/dev/zero": "/dev/zero: not a regular file (a device)",
		t.TempDir(): "not a regular file (a directory)",
	} {
		s := &caddytest.Site{T: t}
		if err := s.Load("ark {\n\ttable " + path + "\n}"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", path, err, want)
		}
	}
	_, errOut, status := caddytest.RunCaddy(t, "", "ark", "check", fifo)
	if status != 1 || !strings.Contains(errOut, "not a regular file (a FIFO)") {
		t.Errorf("check: status %d, stderr %q", status, errOut)
	}

	path := testkit.WriteFile(t, "arks.json", caddytest.TableJSON(t, table.Entry{ID: "ark:12345/x5wf6789", Target: "https://repo.example.org/v1"}))
	s := caddytest.StartOpsSite(t, "ark {\n\ttable "+path+"\n\twatch 100ms\n}")
	renamed := filepath.Join(filepath.Dir(path), "new.json")
	if err := syscall.Mkfifo(renamed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(renamed, path); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the refusal", func() bool {
		for _, e := range caddytest.LogEntries(t, s.Log, "table not reloaded: the running table keeps serving") {
			if strings.Contains(fmt.Sprint(e["reason"]), "a FIFO") {
				return true
			}
		}
		return false
	})
	s.ExpectRedirects(map[string]string{"/ark:12345/x5wf6789": "https://repo.example.org/v1"})
	// The watcher is not stuck in a read: the next config stops it.
	if err := s.Load("ark {\n\tmap ark:12345/x https://e.org/x\n}"); err != nil {
		t.Fatal(err)
	}
}
