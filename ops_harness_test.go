package ark

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// opsSite is a site with the admin endpoint on a free loopback port, for
// /metrics, and Caddy's own logs, debug level and up, as JSON in a file.
type opsSite struct {
	*site
	admin string // http://127.0.0.1:port of the admin endpoint
	log   string // the log file
}

// startOpsSite is startSite for an opsSite.
func startOpsSite(t *testing.T, body string) *opsSite {
	t.Helper()
	s := newOpsSite(t)
	if err := s.load(body); err != nil {
		t.Fatalf("loading config: %v", err)
	}
	return s
}

// newOpsSite returns an opsSite that has no config yet.
func newOpsSite(t *testing.T) *opsSite {
	t.Helper()
	adminPort := freePort(t)
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	s := &opsSite{
		site: &site{t: t, global: fmt.Sprintf(`{
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
		admin: "http://127.0.0.1:" + strconv.Itoa(adminPort),
		log:   logFile,
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	return s
}

// adminClient opens a connection for each request: after a reload the old
// admin server answers on a kept-alive connection, with the old config's
// registry, until Caddy has shut it down. Like client, it has no timeout.
var adminClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// metrics returns the samples at the admin endpoint's /metrics by series:
// `name` or `name{label="value",...}`, labels in Prometheus' order (sorted).
func (s *opsSite) metrics() map[string]float64 {
	s.t.Helper()
	resp, err := adminClient.Get(s.admin + "/metrics")
	// Caddy replaces the admin server on a reload and stops the old one
	// in the background; its socket shares the port (SO_REUSEPORT) until
	// then, and a connection that lands on it as it closes is reset
	// (reload_harness_test.go). A scraper tries again at its next scrape.
	for try := 1; err != nil && try < 50; try++ {
		time.Sleep(20 * time.Millisecond)
		resp, err = adminClient.Get(s.admin + "/metrics")
	}
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("/metrics: %s", resp.Status)
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
			s.t.Fatalf("/metrics: %q: %v", line, err)
		}
		samples[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		s.t.Fatal(err)
	}
	return samples
}

// logEntries returns the entries of the JSON log file at path whose "msg"
// is msg. A line still being written is left for the next call.
func logEntries(t *testing.T, path, msg string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var entries []map[string]any
	for len(data) > 0 {
		line, rest, complete := bytes.Cut(data, []byte("\n"))
		if !complete {
			break
		}
		data = rest
		var e map[string]any
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		if e["msg"] == msg {
			entries = append(entries, e)
		}
	}
	return entries
}

// replaceFile writes content to path the way editors save: to a temporary
// file in the same directory, renamed over path.
func replaceFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// tableJSON is a table file holding entries.
func tableJSON(t *testing.T, entries ...table.Entry) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"entries": entries})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
