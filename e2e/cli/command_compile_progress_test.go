package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dustin/go-humanize"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// compile --progress with stderr not a terminal writes lines for a log,
// no bar: one as each phase ends, with what it did and how long it took,
// and the total at the end.
func TestArkCommandCompileProgressLines(t *testing.T) {
	src := testkit.WriteFile(t, "src.json", testkit.EveryField)
	out := filepath.Join(t.TempDir(), "t.arkt")
	_, errOut, err := caddytest.RunArkCommand(t, "", "compile", src, "-o", out, "--progress")
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(errOut, "\r\033") {
		t.Errorf("terminal controls in the output for a log: %q", errOut)
	}
	in, _ := os.Stat(src)
	compiled, _ := os.Stat(out)
	took := `in [0-9.]+(µs|ms|s)`
	want := []*regexp.Regexp{
		regexp.MustCompile(`^compile: read: ` + regexp.QuoteMeta(humanize.IBytes(uint64(in.Size()))) + ` ` + took + `( \([^)]+/s\))?, 10 entries$`),
		regexp.MustCompile(`^compile: check: 10 entries ` + took + `( \([0-9,]+/s\))?$`),
		regexp.MustCompile(`^compile: sort: 10 entries ` + took + `( \([0-9,]+/s\))?$`),
		regexp.MustCompile(`^compile: index: 16 slots ` + took + `( \([0-9,]+/s\))?$`),
		regexp.MustCompile(`^compile: write: [0-9.]+ (B|KiB) ` + took + `( \([^)]+/s\))?$`),
		regexp.MustCompile(`^compile: done ` + took + ` \(read [^,]+, check [^,]+, sort [^,]+, index [^,]+, write [^,]+\)$`),
	}
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), errOut)
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d: %q, want %s", i+1, lines[i], re)
		}
	}
	var written uint64
	if f := strings.Fields(lines[4]); len(f) > 3 {
		written, _ = humanize.ParseBytes(f[2] + " " + f[3])
	}
	if written == 0 || written >= uint64(compiled.Size()) {
		t.Errorf("write: %d bytes after the index, of a file of %d", written, compiled.Size())
	}
}
