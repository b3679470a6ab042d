package ark

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

// site is a real Caddy server, running in this process on a loopback port,
// with a config adapted from a Caddyfile.
type site struct {
	t      *testing.T
	base   string // http://127.0.0.1:port
	global string // the global options block; globalOptions when ""

	// catchAll makes the site answer any Host (":port") instead of
	// http://127.0.0.1:port only.
	catchAll bool
}

// globalOptions keep test servers off the admin port and the disk.
const globalOptions = `{
	admin off
	persist_config off
	skip_install_trust
	grace_period 1s
	log {
		output discard
	}
}
`

// startSite loads a Caddyfile whose site block is body (the inside of the
// block) on a free loopback port, and stops Caddy when the test ends.
func startSite(t *testing.T, body string) *site {
	t.Helper()
	s := &site{t: t}
	if err := s.load(body); err != nil {
		t.Fatalf("loading config: %v", err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	return s
}

// load replaces the running config with one holding body, on the same
// port when the site already has one. It returns Caddy's error.
func (s *site) load(body string) error {
	s.t.Helper()
	port := strings.TrimPrefix(s.base, "http://127.0.0.1:")
	if port == "" {
		port = strconv.Itoa(freePort(s.t))
		s.base = "http://127.0.0.1:" + port
	}
	caddyfile := s.caddyfile(body)
	cfg, err := adaptCaddyfile(caddyfile, filepath.Join(s.t.TempDir(), "Caddyfile"))
	if err != nil {
		return err
	}
	err = loadConfig(cfg, true)
	// The old config's servers close their kept-alive connections as they
	// stop; a request sent on one would fail, and net/http does not retry a
	// POST.
	client.CloseIdleConnections()
	return err
}

// caddyfile returns the whole Caddyfile of a site whose block is body.
func (s *site) caddyfile(body string) string {
	global := globalOptions
	if s.global != "" {
		global = s.global
	}
	address := "http://" + strings.TrimPrefix(s.base, "http://")
	if s.catchAll {
		address = ":" + strings.TrimPrefix(s.base, "http://127.0.0.1:")
	}
	return global + "\n" + address + " {\n\tbind 127.0.0.1\n" + body + "\n}\n"
}

// adaptCaddyfile adapts a Caddyfile as if it were the file at filename.
func adaptCaddyfile(body, filename string) ([]byte, error) {
	adapter := caddyconfig.GetAdapter("caddyfile")
	cfg, warnings, err := adapter.Adapt([]byte(body), map[string]any{"filename": filename})
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		if !strings.Contains(w.Message, "formatted") {
			return nil, &adaptWarning{w.String()}
		}
	}
	return cfg, nil
}

type adaptWarning struct{ msg string }

func (w *adaptWarning) Error() string { return "adapt warning: " + w.msg }

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// answer is what the site said to one request.
type answer struct {
	status   int
	location string
	body     string
	header   http.Header
}

// client never follows redirects: the tests look at them. It has no
// timeout: how long an answer takes is not what these tests check, and a
// request that hangs is ended by go test's own -timeout, with every
// goroutine's stack.
var client = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// get requests the raw path (sent as written, escapes and all).
func (s *site) get(rawPath string) answer { return s.do(http.MethodGet, rawPath, nil) }

func (s *site) do(method, rawPath string, header http.Header) answer {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+"/", nil)
	if err != nil {
		s.t.Fatal(err)
	}
	// Opaque keeps the request-target byte for byte as the test wrote it.
	req.URL.Opaque = "//127.0.0.1" + strings.TrimPrefix(s.base, "http://127.0.0.1") + rawPath
	if i := strings.IndexByte(rawPath, '?'); i >= 0 {
		req.URL.Opaque = "//127.0.0.1" + strings.TrimPrefix(s.base, "http://127.0.0.1") + rawPath[:i]
		req.URL.RawQuery = rawPath[i+1:]
		req.URL.ForceQuery = true
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	for try := 1; err != nil && try < 3 && (method == http.MethodGet || method == http.MethodHead); try++ {
		// A config load closes the old server's idle keep-alive
		// connections: a request sent on one at that moment is reset
		// (Caddy's behaviour, see BENCHMARKS.md), and clients retry.
		resp, err = client.Do(req)
	}
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, rawPath, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return answer{status: resp.StatusCode, location: resp.Header.Get("Location"), body: string(body), header: resp.Header}
}

// testRoot is the static site the tests serve in place from.
func testRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("testdata/site")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// expectRedirects checks that each raw path answers 302 with its Location.
func (s *site) expectRedirects(want map[string]string) {
	s.t.Helper()
	for p, location := range want {
		if got := s.get(p); got.status != 302 || got.location != location {
			s.t.Errorf("%s: got %d %q, want 302 %q", p, got.status, got.location, location)
		}
	}
}
