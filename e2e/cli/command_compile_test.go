package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// compile's flags: a small --max-memory and --tmp give the same file,
// leave nothing behind, and --progress reports each phase on stderr,
// which is otherwise quiet when it is not a terminal.
func TestArkCommandCompileFlags(t *testing.T) {
	src := testkit.WriteFile(t, "src.json", testkit.EveryField)
	dir, tmp := t.TempDir(), t.TempDir()
	plain, small := filepath.Join(dir, "plain.arkt"), filepath.Join(dir, "small.arkt")
	if _, errOut, err := caddytest.RunArkCommand(t, "", "compile", src, "-o", plain); err != nil || errOut != "" {
		t.Fatalf("compile: %v, stderr %q", err, errOut)
	}
	out, errOut, err := caddytest.RunArkCommand(t, "", "compile", src, "-o", small, "--max-memory", "1MiB", "--tmp", tmp, "--progress")
	if err != nil || !strings.HasPrefix(out, small+": 9 identifiers from 10 entries") {
		t.Fatalf("compile --max-memory 1MiB: %v, %q", err, out)
	}
	for _, phase := range []string{"read", "check", "sort", "index", "write"} {
		if !strings.Contains(errOut, "compile: "+phase+": ") {
			t.Errorf("no %s phase in the progress: %q", phase, errOut)
		}
	}
	a, _ := os.ReadFile(plain)
	b, _ := os.ReadFile(small)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("the file compiled with --max-memory 1MiB differs")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in --tmp: %v", left)
	}
	for _, size := range []string{"lots", "1KiB"} {
		if _, _, err := caddytest.RunArkCommand(t, "", "compile", src, "-o", small, "--max-memory", size); err == nil || !strings.Contains(err.Error(), "--max-memory") {
			t.Errorf("--max-memory %s: %v", size, err)
		}
	}
}
