package ezid

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddyserver/caddy/v2"
)

// BenchmarkEZIDvsNative measures create, update and mint through EZID's
// API against the same through the native API, on one Caddy in this
// process with a bbolt store, one request at a time, each made by alice
// with Basic credentials that basic_auth verifies (so both pay the same
// authentication). Results are in BENCHMARKS.md.
//
//	go test -run '^$' -bench BenchmarkEZIDvsNative -benchtime 2000x ./e2e/ezid
func BenchmarkEZIDvsNative(b *testing.B) {
	for _, api := range []string{"ezid", "native"} {
		b.Run(api, func(b *testing.B) {
			s := startBenchSite(b)
			for _, op := range []string{"create", "update", "mint"} {
				b.Run(op, func(b *testing.B) {
					req := benchRequests[api+" "+op]
					start := time.Now()
					i := 0
					for b.Loop() {
						i++
						method, path, body, want := req(strconv.Itoa(i))
						if got := s.send(method, path, body); got != want {
							b.Fatalf("%s %s: %d, want %d", method, path, got, want)
						}
					}
					b.ReportMetric(float64(i)/time.Since(start).Seconds(), "ops/s")
				})
			}
		})
	}
}

// benchRequests make the i-th request of each API and operation: method,
// path, body and the status it is answered with.
var benchRequests = map[string]func(i string) (string, string, string, int){
	"ezid create": func(i string) (string, string, string, int) {
		return "PUT", "/id/ark:/12345/x5c" + i, "_target: https://example.org/c/" + i + "\nerc.who: Proust, Marcel\nerc.what: Remembrance of Things Past\n", http.StatusCreated
	},
	"ezid update": func(i string) (string, string, string, int) {
		return "POST", "/id/ark:/12345/x5c" + i, "erc.when: 1922\n_target: https://example.org/u/" + i + "\n", http.StatusOK
	},
	"ezid mint": func(string) (string, string, string, int) {
		return "POST", "/shoulder/ark:/12345/x5", "_target: https://example.org/m/${identifier}\nerc.what: minted\n", http.StatusCreated
	},
	"native create": func(i string) (string, string, string, int) {
		return "PUT", "/api/ark/id/ark:12345/x5c" + i, `{"target": "https://example.org/c/` + i + `", "meta": {"erc.who": "Proust, Marcel", "erc.what": "Remembrance of Things Past"}}`, http.StatusCreated
	},
	"native update": func(i string) (string, string, string, int) {
		return "PATCH", "/api/ark/id/ark:12345/x5c" + i, `{"target": "https://example.org/u/` + i + `", "meta": {"erc.when": "1922"}}`, http.StatusOK
	},
	"native mint": func(string) (string, string, string, int) {
		return "POST", "/api/ark/mint/ark:12345/x5", `{"target": "https://example.org/m/{id}", "meta": {"erc.what": "minted"}}`, http.StatusCreated
	},
}

// benchSite is a test site for a benchmark.
type benchSite struct {
	base string
	b    *testing.B
}

// startBenchSite starts the tests' site on a bbolt file, on a free
// loopback port, and stops Caddy when the benchmark ends.
func startBenchSite(b *testing.B) *benchSite {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ln.Close()
	tablePath := filepath.Join(b.TempDir(), "table.json")
	if err := os.WriteFile(tablePath, []byte(`{"entries": []}`), 0o644); err != nil {
		b.Fatal(err)
	}
	body := siteBody(b, "store bolt "+filepath.Join(b.TempDir(), "ark.db"), tablePath, "", "")
	cfg, err := caddytest.AdaptCaddyfile(caddytest.GlobalOptions+"\n"+base+" {\n"+body+"\n}\n", filepath.Join(b.TempDir(), "Caddyfile"))
	if err != nil {
		b.Fatal(err)
	}
	if err := caddytest.LoadConfig(cfg, true); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = caddy.Stop() })
	return &benchSite{base: base, b: b}
}

// send sends a request as alice and returns its status.
func (s *benchSite) send(method, path, body string) int {
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		s.b.Fatal(err)
	}
	req.SetBasicAuth("alice", "alice-pw")
	switch {
	case strings.HasPrefix(path, "/api/"):
		req.Header.Set("Content-Type", "application/json")
	default:
		req.Header.Set("Content-Type", "text/plain; charset=UTF-8")
	}
	resp, err := caddytest.Client.Do(req)
	if err != nil {
		s.b.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
