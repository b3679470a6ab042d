package docs

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// xcaddyBinaryEnv names the environment variable that gives the path of a
// Caddy built by README.md's xcaddy command line from this checkout;
// .ci/run builds one and sets it.
const xcaddyBinaryEnv = "CADDY_ARK_XCADDY_BINARY"

// The binary that README.md's xcaddy line builds has the plugin's three
// modules, and serves the example site as the README's samples show: the
// samples are replayed against examples/Caddyfile run by that binary, as
// TestDocsHTTPSamplesAreRealAnswers replays them in-process. Skipped when
// no binary is given, except under CI=true, where .ci/run builds it.
func TestDocsHTTPSamplesThroughXcaddyBuild(t *testing.T) {
	bin := os.Getenv(xcaddyBinaryEnv)
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: .ci/run builds Caddy with README.md's xcaddy line and sets it", xcaddyBinaryEnv)
		}
		t.Skipf("%s is not set: build with README.md's xcaddy line and set it to the binary", xcaddyBinaryEnv)
	}
	t.Chdir(caddytest.ModuleRoot(t))
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"))

	modules := runBinary(t, bin, env, "list-modules")
	for _, id := range []string{"http.handlers.ark", "ark.stores.bolt", "ark.stores.postgres"} {
		if !strings.Contains("\n"+modules+"\n", "\n"+id+"\n") {
			t.Errorf("%s list-modules does not list %s:\n%s", bin, id, modules)
		}
	}

	cfg := runBinary(t, bin, env, "adapt", "--config", "examples/Caddyfile")
	port := strconv.Itoa(caddytest.FreePort(t))
	config := filepath.Join(home, "caddy.json")
	if err := os.WriteFile(config, onLoopback(t, []byte(cfg), port), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + port
	startBinary(t, bin, env, addr, "run", "--config", config)
	// As for the in-process site: OAI-PMH lists hold what changed before
	// the second they are asked in, and the map entries changed at load.
	testkit.NextSecond()
	checkDocsHTTPSamples(t, addr)
}

// runBinary runs bin with args in the repository's root and returns its
// standard output.
func runBinary(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// onLoopback returns the example site's JSON config, as the binary's
// Caddyfile adapter made it, with its one server listening on port of
// 127.0.0.1 instead of :8080, without the admin endpoint and without
// saving the config, so that nothing is shared with other Caddy
// instances on the machine. Nothing else changes.
func onLoopback(t *testing.T, adapted []byte, port string) []byte {
	t.Helper()
	var cfg map[string]any
	if err := json.Unmarshal(adapted, &cfg); err != nil {
		t.Fatalf("the adapted examples/Caddyfile: %v", err)
	}
	cfg["admin"] = map[string]any{"disabled": true, "config": map[string]any{"persist": false}}
	apps, _ := cfg["apps"].(map[string]any)
	httpApp, _ := apps["http"].(map[string]any)
	servers, _ := httpApp["servers"].(map[string]any)
	if len(servers) != 1 {
		t.Fatalf("the adapted examples/Caddyfile has %d servers, not the one at :8080 that the sample check follows", len(servers))
	}
	for name, s := range servers {
		srv, _ := s.(map[string]any)
		listen, _ := srv["listen"].([]any)
		if len(listen) != 1 || listen[0] != ":8080" {
			t.Fatalf("server %s listens on %v, not on :8080 that the sample check follows", name, srv["listen"])
		}
		srv["listen"] = []any{"127.0.0.1:" + port}
	}
	out, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// startBinary starts bin with args in the repository's root, waits until
// the site at addr answers its ready endpoint, and stops bin (SIGINT, as
// systemd's stop does with SIGTERM) when the test ends.
func startBinary(t *testing.T, bin string, env []string, addr string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var output bytes.Buffer
	cmd.Stdout = &output
	cmd.Stderr = &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	testkit.WaitFor(t, bin+" to serve the example site", func() bool {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("%s %s exited before it served: %v\n%s", bin, strings.Join(args, " "), err, output.String())
		default:
		}
		resp, err := caddytest.Client.Get("http://" + addr + "/healthz/ark")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}
