package caddytest

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile" // the caddyfile adapter
	_ "github.com/caddyserver/caddy/v2/modules/standard"      // Caddy's standard modules
)

// Site is a real Caddy server, running in this process on a loopback port,
// with a config adapted from a Caddyfile.
type Site struct {
	// T is the test the site runs for; helpers fail it.
	T *testing.T
	// Base is http://127.0.0.1:port, set by the first Load.
	Base string
	// Global is the global options block; GlobalOptions when "".
	Global string

	// CatchAll makes the site answer any Host (":port") instead of
	// http://127.0.0.1:port only.
	CatchAll bool
}

// GlobalOptions keep test servers off the admin port and the disk.
const GlobalOptions = `{
	admin off
	persist_config off
	skip_install_trust
	grace_period 1s
	log {
		output discard
	}
}
`

// StartSite loads a Caddyfile whose site block is body (the inside of the
// block) on a free loopback port, and stops Caddy when the test ends.
func StartSite(t *testing.T, body string) *Site {
	t.Helper()
	s := &Site{T: t}
	if err := s.Load(body); err != nil {
		t.Fatalf("loading config: %v", err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	return s
}

// Load replaces the running config with one holding body, on the same
// port when the site already has one. It returns Caddy's error.
func (s *Site) Load(body string) error {
	s.T.Helper()
	port := strings.TrimPrefix(s.Base, "http://127.0.0.1:")
	if port == "" {
		port = strconv.Itoa(FreePort(s.T))
		s.Base = "http://127.0.0.1:" + port
	}
	caddyfile := s.Caddyfile(body)
	cfg, err := AdaptCaddyfile(caddyfile, filepath.Join(s.T.TempDir(), "Caddyfile"))
	if err != nil {
		return err
	}
	err = LoadConfig(cfg, true)
	// The old config's servers close their kept-alive connections as they
	// stop; a request sent on one would fail, and net/http does not retry a
	// POST.
	Client.CloseIdleConnections()
	return err
}

// Caddyfile returns the whole Caddyfile of a site whose block is body.
func (s *Site) Caddyfile(body string) string {
	global := GlobalOptions
	if s.Global != "" {
		global = s.Global
	}
	address := "http://" + strings.TrimPrefix(s.Base, "http://")
	if s.CatchAll {
		address = ":" + strings.TrimPrefix(s.Base, "http://127.0.0.1:")
	}
	return global + "\n" + address + " {\n\tbind 127.0.0.1\n" + body + "\n}\n"
}

// AdaptCaddyfile adapts a Caddyfile as if it were the file at filename.
// A warning is an error, except that the file is not formatted.
func AdaptCaddyfile(body, filename string) ([]byte, error) {
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

// adaptWarning is a warning of the Caddyfile adapter, as an error.
type adaptWarning struct{ msg string }

func (w *adaptWarning) Error() string { return "adapt warning: " + w.msg }

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Answer is what the site said to one request.
type Answer struct {
	// Status is the response's status code.
	Status int
	// Location is its Location header field.
	Location string
	// Body is the whole body.
	Body string
	// Header is every header field.
	Header http.Header
}

// Client never follows redirects: the tests look at them. It has no
// timeout: how long an answer takes is not what these tests check, and a
// request that hangs is ended by go test's own -timeout, with every
// goroutine's stack.
var Client = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// Get requests the raw path (sent as written, escapes and all).
func (s *Site) Get(rawPath string) Answer { return s.Do(http.MethodGet, rawPath, nil) }

// Do sends a request with method for the raw path (sent as written) with
// header's fields, failing the test when no answer comes. A GET or HEAD
// is sent again when its connection is reset by a reload.
func (s *Site) Do(method, rawPath string, header http.Header) Answer {
	s.T.Helper()
	req, err := http.NewRequest(method, s.Base+"/", nil)
	if err != nil {
		s.T.Fatal(err)
	}
	// Opaque keeps the request-target byte for byte as the test wrote it.
	req.URL.Opaque = "//127.0.0.1" + strings.TrimPrefix(s.Base, "http://127.0.0.1") + rawPath
	if i := strings.IndexByte(rawPath, '?'); i >= 0 {
		req.URL.Opaque = "//127.0.0.1" + strings.TrimPrefix(s.Base, "http://127.0.0.1") + rawPath[:i]
		req.URL.RawQuery = rawPath[i+1:]
		req.URL.ForceQuery = true
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := Client.Do(req)
	for try := 1; err != nil && try < 3 && (method == http.MethodGet || method == http.MethodHead); try++ {
		// A config load closes the old server's idle keep-alive
		// connections: a request sent on one at that moment is reset
		// (Caddy's behaviour, see BENCHMARKS.md), and clients retry.
		resp, err = Client.Do(req)
	}
	if err != nil {
		s.T.Fatalf("%s %s: %v", method, rawPath, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		s.T.Fatal(err)
	}
	return Answer{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(body), Header: resp.Header}
}

// ExpectRedirects checks that each raw path answers 302 with its Location.
func (s *Site) ExpectRedirects(want map[string]string) {
	s.T.Helper()
	for p, location := range want {
		if got := s.Get(p); got.Status != 302 || got.Location != location {
			s.T.Errorf("%s: got %d %q, want 302 %q", p, got.Status, got.Location, location)
		}
	}
}
