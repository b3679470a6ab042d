package localcopy

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// node is a caddy process (the built binary) that the test can stop and
// start again, as a machine restarts.
type node struct {
	*caddytest.APISite
	cmd *exec.Cmd
}

// startNode starts a caddy process serving the site block body, whose
// table assigns ark:12345/t1, and waits until it answers that; it is
// killed by PID when the test ends, if stop did not already.
func startNode(t *testing.T, body, tablePath string) *node {
	t.Helper()
	port := caddytest.FreePort(t)
	dir := t.TempDir()
	config := testkit.WriteFile(t, "Caddyfile", caddytest.GlobalOptions+"\n:"+strconv.Itoa(port)+" {\n\tbind 127.0.0.1\n"+body+"\n}\n")
	cmd := exec.Command(caddytest.Binary(t), "run", "--config", config, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n := &node{APISite: &caddytest.APISite{Site: &caddytest.Site{T: t, Base: "http://127.0.0.1:" + strconv.Itoa(port)}, Table: tablePath}, cmd: cmd}
	t.Cleanup(n.stop)
	testkit.WaitFor(t, "the caddy process to answer", func() bool {
		resp, err := caddytest.Client.Get(n.Base + "/ark:12345/t1")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusFound
	})
	return n
}

// stop kills the process, as a crash or a power cut does.
func (n *node) stop() {
	if n.cmd.ProcessState == nil {
		_ = syscall.Kill(n.cmd.Process.Pid, syscall.SIGKILL)
		_ = n.cmd.Wait()
	}
}

// siteBody is an API site's block (caddytest.APISiteBody) on the store
// given as a Caddyfile line, with a local copy in copyDir and the
// readiness check at /ready.
func siteBody(storeLine, tablePath, copyDir string) string {
	return strings.Replace(caddytest.APISiteBody("BOLT", tablePath, "local_copy "+copyDir+"\n\t\tready /ready"), "store bolt BOLT", storeLine, 1)
}

// waitCopyCurrent waits until n's copy serves and has read every change
// made before: the copy builds in the background, and on a loaded machine
// it may still be building (lookups going to the store) when a test has
// seen the answers it expects.
func waitCopyCurrent(t *testing.T, n *node) {
	t.Helper()
	testkit.WaitFor(t, "the node's copy to be built and current", func() bool {
		got := n.Get("/ready")
		return strings.Contains(got.Body, `"state":"serving"`) && strings.Contains(got.Body, `"behind_changes":0`)
	})
}
