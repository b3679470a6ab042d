package targets

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddy-ark/caddy-ark/targets"
)

// targetOrigin is a real HTTP server that targets point to; it counts
// what arrived, by path.
type targetOrigin struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func startTargetOrigin(t *testing.T, h http.HandlerFunc) *targetOrigin {
	t.Helper()
	o := &targetOrigin{hits: map[string]int{}}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.hits[r.URL.Path]++
		o.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *targetOrigin) hitsOf(path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hits[path]
}

// checksIn reads the target checks of the bolt store at path, which a
// running Caddy has open: the test shares the open file.
func checksIn(t *testing.T, path string) store.TargetChecks {
	t.Helper()
	return testkit.Provision(t, &bolt.Store{Path: path})
}

// waitCheck waits until target's check is in state, and returns it.
func waitCheck(t *testing.T, tc store.TargetChecks, target string, state store.TargetState) *store.TargetCheck {
	t.Helper()
	var c *store.TargetCheck
	testkit.WaitFor(t, target+" "+string(state), func() bool {
		cs, err := tc.LookupTargetChecks(context.Background(), []string{target})
		if err != nil {
			t.Fatal(err)
		}
		c = cs[0]
		return c != nil && c.State == state
	})
	return c
}

// A site with targets_check checks its table's targets through Caddy: its
// in-place targets by asking itself (whatever allow_private says, and
// without counting them as resolutions), its redirects over the network,
// where a name resolving to a loopback address is not fetched until
// allow_private is set. The config reload that sets it hands the checks
// to a new checker.
func TestTargetsCheckThroughCaddy(t *testing.T) {
	o := startTargetOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ok" {
			http.NotFound(w, r)
		}
	})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(o.URL, "http://"))
	named := "http://localhost:" + port
	tablePath := testkit.WriteTable(t, []table.Entry{
		{ID: "ark:12345/ok", Target: named + "/ok"},
		{ID: "ark:12345/gone", Target: named + "/gone"},
		{ID: "ark:12345/here", Target: "/objects/a.txt"},
		{ID: "ark:12345/lost", Target: "/objects/none.txt"},
		{ID: "ark:12345/moved", Target: "/objects/a.txt", Status: 302},
	})
	db := t.TempDir() + "/ark.db"
	body := func(more string) string {
		return `
	root * ` + testkit.HiddenRoot(t) + `
	ark {
		naan 12345
		table ` + tablePath + `
		store bolt ` + db + `
		targets_check {
			interval 1s
			host_interval 10ms
			timeout 2s
			failures 2
			` + more + `
		}
	}
	file_server`
	}
	s := caddytest.StartOpsSite(t, body(""))
	tc := checksIn(t, db)
	before := s.Metrics()
	here := waitCheck(t, tc, "/objects/a.txt", store.TargetOK)
	if here.Code != "200" || here.Key == "" {
		t.Errorf("an in-place target that is there: %+v", here)
	}
	if c := waitCheck(t, tc, "/objects/none.txt", store.TargetBroken); c.Code != "404" || c.Failures != 2 {
		t.Errorf("an in-place target that is missing: %+v", c)
	}
	for _, target := range []string{named + "/ok", named + "/gone"} {
		if c := waitCheck(t, tc, target, store.TargetUnverifiable); c.Code != "private address" {
			t.Errorf("%s without allow_private: %+v", target, c)
		}
	}
	if n := o.hitsOf("/ok") + o.hitsOf("/gone"); n != 0 {
		t.Errorf("without allow_private, %d requests reached a name resolving to 127.0.0.1", n)
	}
	// The in-place target is checked again, a pass later, without
	// counting a resolution.
	testkit.WaitFor(t, "a second check of the in-place target", func() bool {
		cs, _ := tc.LookupTargetChecks(context.Background(), []string{"/objects/a.txt"})
		return cs[0].Checked.After(here.Checked)
	})
	after := s.Metrics()
	if a, b := after[caddytest.Resolutions(resolve.OutcomeInPlace)], before[caddytest.Resolutions(resolve.OutcomeInPlace)]; a != b {
		t.Errorf("in-place checks counted as %v resolutions", a-b)
	}
	if after[`caddy_ark_target_checks_total{result="ok"}`] <= before[`caddy_ark_target_checks_total{result="ok"}`] {
		t.Error("caddy_ark_target_checks_total{result=\"ok\"} did not grow")
	}
	testkit.WaitFor(t, "the gauges", func() bool {
		m := s.Metrics()
		return m[`caddy_ark_targets{state="broken"}`] == 1 && m[`caddy_ark_targets{state="unverifiable"}`] == 2 && m[`caddy_ark_targets{state="ok"}`] == 1
	})

	if err := s.Load(body("allow_private")); err != nil {
		t.Fatal(err)
	}
	waitCheck(t, tc, named+"/ok", store.TargetOK)
	if c := waitCheck(t, tc, named+"/gone", store.TargetBroken); c.Code != "404" {
		t.Errorf("with allow_private: %+v", c)
	}
	if c := waitCheck(t, tc, "/objects/a.txt", store.TargetOK); c.Final != "/objects/a.txt" {
		t.Errorf("a redirect to a local path ends at %q, want /objects/a.txt", c.Final)
	}
}

func TestTargetsCheckCaddyfileErrors(t *testing.T) {
	for block, want := range map[string]string{
		"interval 10ms":            "interval 10ms: must be at least 1s",
		"failures none":            `failures: "none" is not a positive number`,
		"max_rate 0":               `max_rate: "0" is not a positive number`,
		"timeout soon":             `timeout: "soon" is not a duration`,
		"skip":                     "skip: want an origin",
		"skip example.org":         `skip "example.org"`,
		"notify ftp://x.org/":      "notify",
		"colour blue":              `unknown option "colour"`,
		"allow_private please":     "wrong argument count",
		"host_interval -1s":        "host_interval",
		"user_agent a b":           "wrong argument count",
		"notify http://a http://b": "wrong argument count",
	} {
		_, err := caddytest.AdaptCaddyfile("http://127.0.0.1:1 {\n\tark {\n\t\ttargets_check {\n\t\t\t"+block+"\n\t\t}\n\t}\n}\n", "/etc/caddy/Caddyfile")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Caddyfile:") {
			t.Errorf("targets_check { %s }: %v, want %q with the file and line", block, err, want)
		}
	}
}

// How the answers of origins become states, through Caddy and its API's
// report: statuses, a slow answer, a 429 with Retry-After, a HEAD
// refused, a redirect chain, a redirect loop, a front page after a
// migration; and the origin sees its requests one at a time, at least
// host_interval apart.
func TestTargetsCheckAnswersThroughCaddy(t *testing.T) {
	const gap = 40 * time.Millisecond
	var mu sync.Mutex
	var arrivals []time.Time
	running, most, busy, moved := 0, 0, true, false
	o := startTargetOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		running++
		most = max(most, running)
		m := moved
		mu.Unlock()
		defer func() {
			mu.Lock()
			running--
			mu.Unlock()
		}()
		switch r.URL.Path {
		case "/", "/ok", "/chain/3":
		case "/gone":
			w.WriteHeader(http.StatusGone)
		case "/head-refused":
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusMethodNotAllowed)
			}
		case "/login":
			w.WriteHeader(http.StatusForbidden)
		case "/chain/1":
			http.Redirect(w, r, "/chain/2", http.StatusFound)
		case "/chain/2":
			http.Redirect(w, r, "/chain/3", http.StatusSeeOther)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/slow":
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
		case "/busy":
			mu.Lock()
			if busy {
				busy = false
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
			}
			mu.Unlock()
		case "/item":
			if m {
				http.Redirect(w, r, "/", http.StatusMovedPermanently)
			}
		default:
			http.NotFound(w, r)
		}
	})
	paths := map[string]string{
		"ark:12345/x5ok": "/ok", "ark:12345/x5gone": "/gone", "ark:12345/x5head": "/head-refused", "ark:12345/x5login": "/login",
		"ark:12345/x5chain": "/chain/1", "ark:12345/x5loop": "/loop", "ark:12345/x5slow": "/slow", "ark:12345/x5busy": "/busy",
		"ark:12345/x5item": "/item",
	}
	var entries []table.Entry
	for id, path := range paths {
		entries = append(entries, table.Entry{ID: id, Target: o.URL + path})
	}
	s := caddytest.StartAPISite(t, `targets_check {
			interval 1s
			host_interval 40ms
			timeout 500ms
			failures 2
			allow_private
		}`)
	if got := s.Call(http.MethodPost, "/import", "editor", caddytest.TableJSON(t, entries...)); got.Status != http.StatusOK {
		t.Fatalf("import: %d %s", got.Status, got.Body)
	}
	tc := checksIn(t, s.DB)
	waitCheck(t, tc, o.URL+"/item", store.TargetOK)
	mu.Lock()
	moved = true
	mu.Unlock()
	want := map[string][2]string{
		"ark:12345/x5ok": {"ok", "200"}, "ark:12345/x5gone": {"broken", "410"}, "ark:12345/x5head": {"ok", "200"},
		"ark:12345/x5login": {"unverifiable", "403"}, "ark:12345/x5chain": {"ok", "200"}, "ark:12345/x5loop": {"broken", "redirects"},
		"ark:12345/x5slow": {"broken", "timeout"}, "ark:12345/x5busy": {"ok", "200"}, "ark:12345/x5item": {"suspect", "200"},
	}
	var lines map[string]targets.Line
	defer func() {
		if t.Failed() {
			for id, l := range lines {
				t.Logf("%s: %s %q, %d failures, checked %v, since %v", id, l.State, l.Code, l.Failures, l.Checked, l.Since)
			}
		}
	}()
	testkit.WaitFor(t, "every target in its state", func() bool {
		lines = reportLines(t, s.Call(http.MethodGet, "/targets?prefix=ark:12345/x5", "editor", "").Body)
		for id, w := range want {
			if l := lines[id]; string(l.State) != w[0] {
				return false
			}
		}
		return true
	})
	for id, w := range want {
		if l := lines[id]; l.Code != w[1] {
			t.Errorf("%s: %s with code %q, want %q", id, l.State, l.Code, w[1])
		}
	}
	if l := lines["ark:12345/x5chain"]; l.Final != o.URL+"/chain/3" {
		t.Errorf("a redirect chain ended at %q", l.Final)
	}
	if l := lines["ark:12345/x5item"]; l.Final != o.URL+"/" {
		t.Errorf("a target now at the front page: %+v", l)
	}
	mu.Lock()
	defer mu.Unlock()
	if most != 1 {
		t.Errorf("the origin had %d requests at once, want 1", most)
	}
	for i := 1; i < len(arrivals); i++ {
		if d := arrivals[i].Sub(arrivals[i-1]); d < gap {
			t.Errorf("requests %d and %d arrived %v apart, want at least %v", i-1, i, d, gap)
		}
	}
}
