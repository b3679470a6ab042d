package ark

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddyserver/caddy/v2"
)

// The README's recipe for http:// ARKs on a site with automatic HTTPS (see
// Troubleshooting): an http:// site of the host's own answers identifiers
// with a temporary redirect to https://, where Caddy would otherwise
// answer every http:// request with its own 308, and keeps the permanent
// one for the rest of the site.
func TestHTTPSiteRedirectsIdentifiersTemporarily(t *testing.T) {
	httpPort, httpsPort := freePort(t), freePort(t)
	// Caddy issues the local certificate in the background: the test waits
	// for it to be stored (its .json is written last) before it ends and
	// its storage is removed.
	storage := t.TempDir()
	global := "{\n\tadmin off\n\tpersist_config off\n\tskip_install_trust\n\tlocal_certs\n\tstorage file_system " + storage +
		"\n\thttp_port " + strconv.Itoa(httpPort) + "\n\thttps_port " + strconv.Itoa(httpsPort) +
		"\n\tgrace_period 1s\n\tlog {\n\t\toutput discard\n\t}\n}\n"
	cfg, err := adaptCaddyfile(global+`
localhost {
	bind 127.0.0.1
	ark {
		map ark:12345/x https://repo.example.org/x
	}
}

http://localhost {
	bind 127.0.0.1
	@ids path_regexp ^/(?i:ark|urn):
	redir @ids https://{host}{uri} 302
	redir https://{host}{uri} 308
}
`, filepath.Join(t.TempDir(), "Caddyfile"))
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
	for path, want := range map[string]int{
		"/ark:12345/x":     http.StatusFound,
		"/ARK:/12345/x?in": http.StatusFound,
		"/urn:isbn:1":      http.StatusFound,
		"/about.html":      http.StatusPermanentRedirect,
	} {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+strconv.Itoa(httpPort)+path, nil)
		req.Host = "localhost"
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || resp.Header.Get("Location") != "https://localhost"+path {
			t.Errorf("http://localhost%s: %d %q, want %d to https://localhost%s", path, resp.StatusCode, resp.Header.Get("Location"), want, path)
		}
	}
}
