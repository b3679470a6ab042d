package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/table"
)

// A phase whose total is not known (0: a file whose size the system does
// not tell) is shown without "of", a percentage or a bar; one whose
// total is known with all three.
func TestProgressUnknownTotal(t *testing.T) {
	for _, c := range []struct {
		terminal bool
		total    int64
		want     string
	}{
		{false, 0, "compile: read: 5.0 MiB, 85 KiB/s, 7 entries\n"},
		{true, 0, "\r\033[Kcompile: read: 5.0 MiB, 85 KiB/s, 7 entries"},
		{false, 10 << 20, "compile: read: 5.0 MiB of 10 MiB (50%), 85 KiB/s, 7 entries\n"},
		{true, 10 << 20, "\r\033[K[##########..........] compile: read: 5.0 MiB of 10 MiB (50%), 85 KiB/s, 7 entries"},
	} {
		var b strings.Builder
		// The read began a minute ago, and the last line was written
		// then: a line is due now.
		begun := time.Now().Add(-time.Minute)
		p := &progressPrinter{w: &b, terminal: c.terminal, begun: begun, start: begun, last: begun, phase: "read", drawn: c.terminal}
		p.report(table.CompileProgress{Phase: "read", Done: 5 << 20, Total: c.total, Entries: 7})
		if got := b.String(); got != c.want {
			t.Errorf("terminal %v, total %d: %q, want %q", c.terminal, c.total, got, c.want)
		}
	}
}
