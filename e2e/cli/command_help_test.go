package cli

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// The help of caddy ark and of its commands, in the real binary, ends by
// pointing to this project's documentation of them, not to Caddy's.
func TestArkHelpPointsToThisProjectsDocs(t *testing.T) {
	bin := caddytest.Binary(t)
	const footer = "The documentation of these commands is at:\nhttps://github.com/caddy-ark/caddy-ark/blob/main/docs/commands.md\n"
	for _, args := range [][]string{{"ark", "--help"}, {"ark", "compile", "--help"}, {"ark", "stats", "--help"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("caddy %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if !strings.HasSuffix(string(out), footer) || strings.Contains(string(out), "caddyserver.com") {
			t.Errorf("caddy %s ends with:\n%s", strings.Join(args, " "), out[max(0, len(out)-200):])
		}
	}
}
