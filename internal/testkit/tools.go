package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// NeedTool returns the path of a reader a test runs, failing under CI
// when it is missing and skipping elsewhere.
func NeedTool(t *testing.T, tool, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		Missing(t, tool, pkg)
	}
	return path
}

// Missing fails the test under CI, where every reader the tests use is
// installed (.ci/run), and skips it elsewhere, for a reader what (a
// program, a module, a file) from Debian's package pkg that is not there.
func Missing(t *testing.T, what, pkg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (Debian's %s) is required under CI", what, pkg)
	}
	t.Skipf("%s (Debian's %s) is not installed", what, pkg)
}

// ValidateXML checks doc against the XML Schema at xsd with xmllint
// (Debian's libxml2-utils, see NeedTool), without the network: nil when
// it is valid, else xmllint's report.
func ValidateXML(t *testing.T, xsd string, doc []byte) error {
	t.Helper()
	xmllint := NeedTool(t, "xmllint", "libxml2-utils")
	file := filepath.Join(t.TempDir(), "document.xml")
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", xsd, file).CombinedOutput(); err != nil {
		return fmt.Errorf("not valid against %s: %v\n%s", filepath.Base(xsd), err, out)
	}
	return nil
}

// NextSecond waits until the wall clock is in a second after now's: what
// was written before is then in a complete second, which a list answered
// from then on holds.
func NextSecond() {
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
}
