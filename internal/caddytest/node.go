package caddytest

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// PGSiteBody is an APISite's site block with the PostgreSQL store at dsn
// instead of a bolt file, and a sequential minter under ark:12345/b3.
func PGSiteBody(dsn, tablePath string) string {
	return strings.Replace(APISiteBody("BOLT", tablePath, "minter ark:12345/b3 .sdddd"), "store bolt BOLT", "store postgres "+dsn, 1)
}

// StartNode starts a caddy process (the built binary) serving the site
// block body, whose table assigns ark:12345/t1, and stops it by PID when
// the test ends.
func StartNode(t *testing.T, body, tablePath string) *APISite {
	t.Helper()
	port := FreePort(t)
	dir := t.TempDir()
	config := testkit.WriteFile(t, "Caddyfile", GlobalOptions+"\n:"+strconv.Itoa(port)+" {\n\tbind 127.0.0.1\n"+body+"\n}\n")
	cmd := exec.Command(Binary(t), "run", "--config", config, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	node := &APISite{Site: &Site{T: t, Base: "http://127.0.0.1:" + strconv.Itoa(port)}, Table: tablePath, PID: cmd.Process.Pid}
	testkit.WaitFor(t, "the caddy process to answer", func() bool {
		resp, err := Client.Get(node.Base + "/ark:12345/t1")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusFound
	})
	return node
}
