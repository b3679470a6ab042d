package serve

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// The README's recipe for http:// ARKs on a site with automatic HTTPS (see
// Troubleshooting): an http:// site of the host's own answers identifiers
// with a temporary redirect to https://, where Caddy would otherwise
// answer every http:// request with its own 308, and keeps the permanent
// one for the rest of the site.
func TestHTTPSiteRedirectsIdentifiersTemporarily(t *testing.T) {
	httpPort, _ := caddytest.StartLocalHTTPS(t, "", `
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
`)
	for path, want := range map[string]int{
		"/ark:12345/x":     http.StatusFound,
		"/ARK:/12345/x?in": http.StatusFound,
		"/urn:isbn:1":      http.StatusFound,
		"/about.html":      http.StatusPermanentRedirect,
	} {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+strconv.Itoa(httpPort)+path, nil)
		req.Host = "localhost"
		resp, err := caddytest.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || resp.Header.Get("Location") != "https://localhost"+path {
			t.Errorf("http://localhost%s: %d %q, want %d to https://localhost%s", path, resp.StatusCode, resp.Header.Get("Location"), want, path)
		}
	}
}
