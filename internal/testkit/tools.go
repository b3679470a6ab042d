package testkit

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// NeedTool returns the path of a reader a test runs, failing under CI
// when it is missing and skipping elsewhere.
func NeedTool(t *testing.T, tool, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (Debian's %s) is required under CI", tool, pkg)
		}
		t.Skipf("%s (Debian's %s) is not installed", tool, pkg)
	}
	return path
}

// NextSecond waits until the wall clock is in a second after now's: what
// was written before is then in a complete second, which a list answered
func NextSecond() {
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
}
