package caddytest

import (
	"bufio"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// OpsSite is a site with the admin endpoint on a free loopback port, for
// /metrics, and Caddy's own logs, debug level and up, as JSON in a file.
type OpsSite struct {
	*Site
	// Admin is http://127.0.0.1:port of the admin endpoint.
	Admin string
	// Log is the log file.
	Log string
}

// StartOpsSite is StartSite for an OpsSite.
func StartOpsSite(t *testing.T, body string) *OpsSite {
	t.Helper()
	s := NewOpsSite(t)
	if err := s.Load(body); err != nil {
		t.Fatalf("loading config: %v", err)
	}
	return s
}

// NewOpsSite returns an OpsSite that has no config yet.
func NewOpsSite(t *testing.T) *OpsSite {
	t.Helper()
	adminPort := FreePort(t)
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	s := &OpsSite{
		Site: &Site{T: t, Global: fmt.Sprintf(`{
	admin 127.0.0.1:%d
	persist_config off
	skip_install_trust
	grace_period 1s
	log {
		output file %s
		format json
		level DEBUG
	}
}
`, adminPort, logFile)},
		Admin: "http://127.0.0.1:" + strconv.Itoa(adminPort),
		Log:   logFile,
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	return s
}

// AdminClient opens a connection for each request: after a reload the old
// admin server answers on a kept-alive connection, with the old config's
// registry, until Caddy has shut it down. Like Client, it has no timeout.
var AdminClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// Metrics returns the samples at the admin endpoint's /metrics by series:
// `name` or `name{label="value",...}`, labels in Prometheus' order (sorted).
func (s *OpsSite) Metrics() map[string]float64 {
	s.T.Helper()
	resp, err := AdminClient.Get(s.Admin + "/metrics")
	// Caddy replaces the admin server on a reload and stops the old one
	// in the background; its socket shares the port (SO_REUSEPORT) until
	// then, and a connection that lands on it as it closes is reset
	// (reload.go). A scraper tries again at its next scrape.
	for try := 1; err != nil && try < 50; try++ {
		time.Sleep(20 * time.Millisecond)
		resp, err = AdminClient.Get(s.Admin + "/metrics")
	}
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		s.T.Fatalf("/metrics: %s", resp.Status)
	}
	samples := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			s.T.Fatalf("/metrics: %q: %v", line, err)
		}
		samples[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		s.T.Fatal(err)
	}
	return samples
}
