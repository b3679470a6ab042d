package caddytest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddyserver/caddy/v2"
)

// StartLocalHTTPS runs sites (Caddyfile site blocks) on free HTTP and
// HTTPS ports, with certificates from Caddy's local CA in a storage of the
// test's own, and options (global options, one a line) added; it returns
// the ports. Caddy issues the certificate in the background: the test
// waits for it to be stored (its .json is written last) before it ends and
// the storage is removed.
func StartLocalHTTPS(t *testing.T, options, sites string) (httpPort, httpsPort int) {
	t.Helper()
	httpPort, httpsPort = FreePort(t), FreePort(t)
	storage := t.TempDir()
	global := "{\n\tadmin off\n\tpersist_config off\n\tskip_install_trust\n\tlocal_certs\n\tstorage file_system " + storage +
		"\n\thttp_port " + strconv.Itoa(httpPort) + "\n\thttps_port " + strconv.Itoa(httpsPort) + "\n" + options +
		"\tgrace_period 1s\n\tlog {\n\t\toutput discard\n\t}\n}\n"
	cfg, err := AdaptCaddyfile(global+sites, filepath.Join(t.TempDir(), "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	t.Cleanup(func() {
		testkit.WaitFor(t, "the local certificate to be stored", func() bool {
			_, err := os.Stat(filepath.Join(storage, "certificates", "local", "localhost", "localhost.json"))
			return err == nil
		})
	})
	return httpPort, httpsPort
}
