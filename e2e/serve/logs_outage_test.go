package serve

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/resolve"
)

// TestOutageLogsStayReadable sends 10,000 requests for identifiers whose
// store hangs (PostgreSQL frozen with SIGSTOP) and 10,000 for an
// identifier whose in-place target is missing: each kind of message must
// be written once, then summarised with a count at most once every 5s,
// while the metrics count every request. It logs the line counts for
// BENCHMARKS.md.
func TestOutageLogsStayReadable(t *testing.T) {
	const n = 10000
	c := testkit.StartPostgres(t)
	dsn := c.CreateDB(t)
	s := caddytest.StartOpsSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		map ark:12345/gone /objects/nowhere.html
		store postgres `+dsn+` {
			timeout 500ms
		}
	}
	file_server`)
	unavailable := s.Metrics()[caddytest.Resolutions(resolve.OutcomeUnavailable)]
	missing := s.Metrics()[caddytest.Resolutions(resolve.OutcomeMissing)]
	c.Freeze(t)

	start := time.Now()
	var next atomic.Int64
	var wrongMu sync.Mutex
	var wrong []string
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1); i <= 2*n; i = next.Add(1) {
				path, want := fmt.Sprintf("/ark:12345/u%d", i), http.StatusServiceUnavailable
				if i%2 == 0 {
					path, want = "/ark:12345/gone", http.StatusNotFound
				}
				resp, err := caddytest.Client.Get(s.Base + path)
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode == want {
						continue
					}
					err = fmt.Errorf("%d", resp.StatusCode)
				}
				wrongMu.Lock()
				wrong = append(wrong, path+": "+err.Error())
				wrongMu.Unlock()
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	if len(wrong) > 0 {
		t.Fatalf("%d wrong answers, such as %v", len(wrong), wrong[:min(5, len(wrong))])
	}
	if got := s.Metrics()[caddytest.Resolutions(resolve.OutcomeUnavailable)] - unavailable; got != n {
		t.Errorf("unavailable counted %v times, want %d", got, n)
	}
	if got := s.Metrics()[caddytest.Resolutions(resolve.OutcomeMissing)] - missing; got != n {
		t.Errorf("missing_target counted %v times, want %d", got, n)
	}

	// A line at once, then one each 5s at most, the last of them up to
	// 5s after the requests ended.
	most := 2 + int(took/(5*time.Second))
	for _, msg := range []string{"the identifier could not be looked up", "identifier resolved to a missing target"} {
		lines := caddytest.LogEntries(t, s.Log, msg)
		t.Logf("%d requests of each kind in %v: %d lines %q at the end", n, took.Round(time.Millisecond), len(lines), msg)
		testkit.WaitFor(t, "the summary of "+msg, func() bool {
			lines = caddytest.LogEntries(t, s.Log, msg)
			total := 0
			for _, l := range lines {
				if r, ok := l["repeated"].(float64); ok {
					total += int(r) // a summary stands for the messages it counts
				} else {
					total++
				}
			}
			return total == n
		})
		t.Logf("%d lines %q once summarised", len(lines), msg)
		if len(lines) > most+1 {
			t.Errorf("%d lines %q for %d requests in %v, want at most %d", len(lines), msg, n, took, most+1)
		}
		for _, l := range lines[1:] {
			if l["repeated"] == nil || l["since"] == nil {
				t.Errorf("%q: a line after the first is no summary: %v", msg, l)
			}
		}
	}
	if !strings.Contains(fmt.Sprint(caddytest.LogEntries(t, s.Log, "the identifier could not be looked up")[0]["error"]), "unavailable") {
		t.Errorf("the first store error line does not say why")
	}
}
