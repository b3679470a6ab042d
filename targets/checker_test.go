package targets_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddy-ark/caddy-ark/targets"
	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// origin is a real HTTP server for the checks, which records what
// arrived.
type origin struct {
	*httptest.Server
	mu       sync.Mutex
	arrivals []arrival
	running  int
	most     int // the most requests it ever had under way at once
}

type arrival struct {
	at     time.Time
	method string
	path   string
}

// startOrigin starts an origin answering with h, for the rest of the test.
func startOrigin(t *testing.T, h http.HandlerFunc) *origin {
	o := &origin{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.arrivals = append(o.arrivals, arrival{time.Now(), r.Method, r.URL.Path})
		o.running++
		o.most = max(o.most, o.running)
		o.mu.Unlock()
		defer func() {
			o.mu.Lock()
			o.running--
			o.mu.Unlock()
		}()
		h(w, r)
	}))
	t.Cleanup(o.Close)
	return o
}

// seen returns the requests that arrived for path, and for every path
// with "".
func (o *origin) seen(path string) []arrival {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []arrival
	for _, a := range o.arrivals {
		if path == "" || a.path == path {
			out = append(out, a)
		}
	}
	return out
}

// site is a site of table entries, with no in-place targets.
type site struct{ t table.Table }

func (s site) Table() table.Table                               { return s.t }
func (s site) Host() string                                     { return "example.org" }
func (s site) ServeHTTP(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) }

// startChecker starts a checker of entries, which maps identifiers to
// targets, with c, on a bolt store in a new file, and returns the store.
func startChecker(t *testing.T, c targets.Config, entries map[string]string) store.Store {
	t.Helper()
	return startSiteChecker(t, c, site{mustTable(t, entries)})
}

// startSiteChecker starts a checker of s with c, on a bolt store in a new
// file, and returns the store.
func startSiteChecker(t *testing.T, c targets.Config, s targets.Site) store.Store {
	t.Helper()
	st := &bolt.Store{Path: filepath.Join(t.TempDir(), "store.db")}
	if err := st.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Cleanup() })
	ch, err := targets.New(&c, st, "test", zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	ch.AddSite(s)
	ch.Start()
	t.Cleanup(ch.Stop)
	return st
}

// report returns the report's lines by identifier.
func report(t *testing.T, st store.Store, tbl table.Table) map[string]*targets.Line {
	t.Helper()
	out := map[string]*targets.Line{}
	err := targets.Report(context.Background(), []table.Table{tbl}, st, targets.Filter{}, func(l *targets.Line) error {
		out[l.ID] = l
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checksOf returns the check of each target.
func checksOf(t *testing.T, st store.Store, ts ...string) []*store.TargetCheck {
	t.Helper()
	cs, err := st.LookupTargetChecks(context.Background(), ts)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// waitState waits until target's check is in state, and returns it.
func waitState(t *testing.T, st store.Store, target string, state store.TargetState) *store.TargetCheck {
	t.Helper()
	var c *store.TargetCheck
	testkit.WaitFor(t, target+" "+string(state), func() bool {
		c = checksOf(t, st, target)[0]
		return c != nil && c.State == state
	})
	return c
}

// fast is a configuration that checks every second.
func fast() targets.Config {
	return targets.Config{Interval: targets.Duration(time.Second), HostInterval: targets.Duration(10 * time.Millisecond),
		Timeout: targets.Duration(300 * time.Millisecond), Failures: 2, AllowPrivate: true}
}

func TestCheckerStatuses(t *testing.T) {
	var mu sync.Mutex
	busy := true
	o := startOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok", "/chain/end":
		case "/gone":
			w.WriteHeader(http.StatusGone)
		case "/head-refused":
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusMethodNotAllowed)
			}
		case "/login-wall":
			w.WriteHeader(http.StatusUnauthorized)
		case "/chain/1", "/chain/2", "/chain/3":
			http.Redirect(w, r, "/chain/"+map[string]string{"/chain/1": "2", "/chain/2": "3", "/chain/3": "end"}[r.URL.Path], http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/slow":
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
			}
		case "/busy":
			mu.Lock()
			defer mu.Unlock()
			if busy {
				busy = false
				w.Header().Set("Retry-After", "2")
				w.WriteHeader(http.StatusTooManyRequests)
			}
		default:
			http.NotFound(w, r)
		}
	})
	closed := startOrigin(t, func(http.ResponseWriter, *http.Request) {})
	closed.Close()
	u := o.URL
	entries := map[string]string{
		"ark:12345/ok": u + "/ok", "ark:12345/missing": u + "/missing", "ark:12345/gone": u + "/gone",
		"ark:12345/head": u + "/head-refused", "ark:12345/login": u + "/login-wall", "ark:12345/chain": u + "/chain/1",
		"ark:12345/loop": u + "/loop", "ark:12345/slow": u + "/slow", "ark:12345/busy": u + "/busy",
		"ark:12345/refused": closed.URL + "/x", "ark:12345/dns": "http://no-such-host.invalid/x",
	}
	st := startChecker(t, fast(), entries)
	for target, want := range map[string]struct {
		state store.TargetState
		code  string
	}{
		u + "/ok": {store.TargetOK, "200"}, u + "/missing": {store.TargetBroken, "404"}, u + "/gone": {store.TargetBroken, "410"},
		u + "/head-refused": {store.TargetOK, "200"}, u + "/login-wall": {store.TargetUnverifiable, "401"},
		u + "/chain/1": {store.TargetOK, "200"}, u + "/loop": {store.TargetBroken, "redirects"},
		u + "/slow": {store.TargetBroken, "timeout"}, u + "/busy": {store.TargetOK, "200"},
		closed.URL + "/x": {store.TargetBroken, "refused"}, "http://no-such-host.invalid/x": {store.TargetBroken, "dns"},
	} {
		c := waitState(t, st, target, want.state)
		if c.Code != want.code {
			t.Errorf("%s: %s with code %q, want %q", target, c.State, c.Code, want.code)
		}
		if c.State == store.TargetBroken && c.Failures < 2 {
			t.Errorf("%s: broken after %d failures, want 2", target, c.Failures)
		}
	}
	if c := checksOf(t, st, u+"/chain/1")[0]; c.Final != u+"/chain/end" {
		t.Errorf("the redirect chain ended at %q, want %s/chain/end", c.Final, u)
	}
	var methods []string
	for _, a := range o.seen("/head-refused") {
		methods = append(methods, a.method)
	}
	if len(methods) < 2 || methods[0] != http.MethodHead || methods[1] != http.MethodGet {
		t.Errorf("a target refusing HEAD was asked %v, want HEAD then GET", methods)
	}
	busyAt := o.seen("/busy")
	if len(busyAt) < 2 || busyAt[1].at.Sub(busyAt[0].at) < 2*time.Second {
		t.Errorf("after a 429 with Retry-After: 2 the target was asked again at %v", busyAt)
	}
	lines := report(t, st, mustTable(t, entries))
	if l := lines["ark:12345/gone"]; l == nil || l.State != store.TargetBroken || l.Code != "410" || l.Checked == nil || l.Since == nil || l.Target != u+"/gone" {
		t.Errorf("report line of a gone target: %+v", l)
	}
	if l := lines["ark:12345/chain"]; l == nil || l.Final != u+"/chain/end" {
		t.Errorf("report line of a redirect chain: %+v, want its final URL", l)
	}
	if len(lines) != len(entries) {
		t.Errorf("the report has %d lines, want one per identifier (%d)", len(lines), len(entries))
	}
}

// A target whose name resolves to a loopback address is not fetched
// without allow_private: the address dialled is checked, not the name.
func TestCheckerRefusesPrivateAddresses(t *testing.T) {
	o := startOrigin(t, func(http.ResponseWriter, *http.Request) {})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(o.URL, "http://"))
	c := fast()
	c.AllowPrivate = false
	named := "http://localhost:" + port + "/by-name"
	st := startChecker(t, c, map[string]string{"ark:12345/name": named, "ark:12345/ip": o.URL + "/by-ip"})
	for _, target := range []string{named, o.URL + "/by-ip"} {
		if c := waitState(t, st, target, store.TargetUnverifiable); c.Code != "private address" {
			t.Errorf("%s: code %q, want private address", target, c.Code)
		}
	}
	if got := o.seen(""); len(got) != 0 {
		t.Errorf("requests reached the loopback origin: %v", got)
	}
}

// One origin gets one request at a time, the starts at least host_interval
// apart, as the origin sees them arrive; another origin is not held up.
func TestCheckerIsPolitePerOrigin(t *testing.T) {
	const gap = 150 * time.Millisecond
	slow := startOrigin(t, func(http.ResponseWriter, *http.Request) { time.Sleep(20 * time.Millisecond) })
	other := startOrigin(t, func(http.ResponseWriter, *http.Request) {})
	entries := map[string]string{}
	for i := range 12 {
		entries[fmt.Sprintf("ark:12345/s%d", i)] = fmt.Sprintf("%s/item/%d", slow.URL, i)
		entries[fmt.Sprintf("ark:12345/o%d", i)] = fmt.Sprintf("%s/item/%d", other.URL, i)
	}
	c := fast()
	c.HostInterval = targets.Duration(gap)
	c.Interval = targets.Duration(time.Hour) // one pass: each target once
	st := startChecker(t, c, entries)
	// New targets are spread over the interval: make them all due now.
	if _, err := targets.CheckNow(context.Background(), []table.Table{mustTable(t, entries)}, st, targets.Prefix{}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "every target checked", func() bool { return len(slow.seen("")) >= 12 && len(other.seen("")) >= 12 })
	got := slow.seen("")
	for i := 1; i < len(got); i++ {
		if d := got[i].at.Sub(got[i-1].at); d < gap-5*time.Millisecond {
			t.Errorf("requests %d and %d arrived %v apart, want at least %v", i-1, i, d, gap)
		}
	}
	if slow.most != 1 {
		t.Errorf("the origin had %d requests at once, want 1", slow.most)
	}
	if first, last := other.seen("")[0].at, got[len(got)-1].at; !first.Before(last) {
		t.Error("the other origin waited for the first one")
	}
}

func mustTable(t *testing.T, entries map[string]string) table.Table {
	t.Helper()
	var es []table.Entry
	for id, target := range entries {
		es = append(es, table.Entry{ID: id, Target: target})
	}
	tbl, err := table.Open(nil, es, false)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// Targets that answered with their own pages, and then all end at one
// page after redirects (a migration), or at the origin's front page, are
// suspect, with the final URL kept; a target that always ended at a
// shared page is not.
func TestCheckerSuspect(t *testing.T) {
	var mu sync.Mutex
	migrated := false
	o := startOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		m := migrated
		mu.Unlock()
		switch {
		case r.URL.Path == "/" || r.URL.Path == "/landing":
		case r.URL.Path == "/always":
			http.Redirect(w, r, "/landing", http.StatusFound)
		case r.URL.Path == "/home-bound" && m:
			http.Redirect(w, r, "/", http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/item/") && m:
			http.Redirect(w, r, "/landing", http.StatusMovedPermanently)
		}
	})
	entries := map[string]string{"ark:12345/home": o.URL + "/home-bound", "ark:12345/always": o.URL + "/always"}
	var items []string
	for i := range 7 {
		items = append(items, fmt.Sprintf("%s/item/%d", o.URL, i))
		entries[fmt.Sprintf("ark:12345/i%d", i)] = items[i]
	}
	st := startChecker(t, fast(), entries)
	for _, target := range append(items, o.URL+"/home-bound") {
		if c := waitState(t, st, target, store.TargetOK); c.Page != target {
			t.Errorf("%s answered with its own page, but its page is %q", target, c.Page)
		}
	}
	mu.Lock()
	migrated = true
	mu.Unlock()
	if c := waitState(t, st, o.URL+"/home-bound", store.TargetSuspect); c.Final != o.URL+"/" {
		t.Errorf("a target now at the front page: final %q", c.Final)
	}
	for _, target := range items {
		if c := waitState(t, st, target, store.TargetSuspect); c.Final != o.URL+"/landing" || c.Page != target || c.Code != "200" {
			t.Errorf("a migrated target: %+v", c)
		}
	}
	if c := checksOf(t, st, o.URL+"/always")[0]; c.State != store.TargetOK || c.Final != o.URL+"/landing" {
		t.Errorf("a target that always ended at the shared page: %+v, want ok", c)
	}
}

// Once a pass, notify receives the targets that became broken during it,
// once.
func TestCheckerNotifiesNewlyBroken(t *testing.T) {
	o := startOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/fine" {
			http.NotFound(w, r)
		}
	})
	var mu sync.Mutex
	var notices []targets.Notice
	hook := startOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		var n targets.Notice
		if err := json.NewDecoder(r.Body).Decode(&n); err != nil || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("notify got %s %s: %v", r.Method, r.Header.Get("Content-Type"), err)
		}
		mu.Lock()
		notices = append(notices, n)
		mu.Unlock()
	})
	c := fast()
	c.Notify = hook.URL + "/hook"
	st := startChecker(t, c, map[string]string{"ark:12345/a": o.URL + "/dead", "ark:12345/b": o.URL + "/fine", "ark:12345/c": o.URL + "/dead2"})
	waitState(t, st, o.URL+"/dead", store.TargetBroken)
	waitState(t, st, o.URL+"/dead2", store.TargetBroken)
	testkit.WaitFor(t, "both notified", func() bool {
		cs := checksOf(t, st, o.URL+"/dead", o.URL+"/dead2")
		return cs[0].Notified && cs[1].Notified
	})
	// Two more passes (the fine target is checked once a pass): nothing
	// new breaks, nothing is sent again.
	checked := len(o.seen("/fine"))
	testkit.WaitFor(t, "two more passes", func() bool { return len(o.seen("/fine")) >= checked+3 })
	mu.Lock()
	defer mu.Unlock()
	seen := map[string]int{}
	for _, n := range notices {
		for _, b := range n.Broken {
			seen[b.Target]++
			if b.Code != "404" || b.Failures < 2 || b.ID == "" || b.Since.IsZero() {
				t.Errorf("notified: %+v", b)
			}
		}
	}
	if seen[o.URL+"/dead"] != 1 || seen[o.URL+"/dead2"] != 1 || len(seen) != 2 {
		t.Errorf("notified %v, want each broken target once", seen)
	}
}

// Skipped origins and shoulders are not asked: their targets stay as they
// were, and the others are checked.
func TestCheckerSkips(t *testing.T) {
	skipped := startOrigin(t, func(http.ResponseWriter, *http.Request) {})
	other := startOrigin(t, func(http.ResponseWriter, *http.Request) {})
	c := fast()
	c.Skip = []string{skipped.URL, "ark:12345/x9"}
	st := startChecker(t, c, map[string]string{
		"ark:12345/a": skipped.URL + "/a", "ark:12345/x9b": other.URL + "/b", "ark:12345/c": other.URL + "/c",
	})
	waitState(t, st, other.URL+"/c", store.TargetOK)
	checked := len(other.seen("/c"))
	testkit.WaitFor(t, "two more passes", func() bool { return len(other.seen("/c")) >= checked+2 })
	if n := len(skipped.seen("")) + len(other.seen("/b")); n != 0 {
		t.Errorf("%d requests for skipped targets", n)
	}
	for _, target := range []string{skipped.URL + "/a", other.URL + "/b"} {
		if c := checksOf(t, st, target)[0]; c == nil || !c.Paused || c.State != store.TargetUnchecked {
			t.Errorf("a skipped target: %+v", c)
		}
	}
}

// max_rate bounds the checks a second over every origin.
func TestCheckerMaxRate(t *testing.T) {
	var mu sync.Mutex
	var at []time.Time
	entries := map[string]string{}
	for i := range 12 {
		o := startOrigin(t, func(http.ResponseWriter, *http.Request) {
			mu.Lock()
			at = append(at, time.Now())
			mu.Unlock()
		})
		entries[fmt.Sprintf("ark:12345/r%d", i)] = o.URL + "/x"
	}
	c := fast()
	c.Interval = targets.Duration(time.Hour)
	c.HostInterval = 0
	c.MaxRate = 4
	st := startChecker(t, c, entries)
	if _, err := targets.CheckNow(context.Background(), []table.Table{mustTable(t, entries)}, st, targets.Prefix{}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "every target checked", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(at) >= 12
	})
	mu.Lock()
	defer mu.Unlock()
	// 12 checks at 4 a second, the first at once: at least 2.75 s.
	if d := at[len(at)-1].Sub(at[0]); d < 2500*time.Millisecond {
		t.Errorf("12 checks at max_rate 4 took %v, want at least 2.75s", d)
	}
}

// A target whose check waits in its origin's queue longer than the
// interval is not taken again meanwhile: it is never checked twice at
// once, which would judge the second check from the record as it was
// before the first, undo the first's result and forget the target's own
// page, hiding its migration.
func TestCheckerTakesATargetOnceWhileItWaits(t *testing.T) {
	var mu sync.Mutex
	migrated := false
	o := startOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		m := migrated
		mu.Unlock()
		if m && r.URL.Path != "/" {
			http.Redirect(w, r, "/", http.StatusMovedPermanently)
		}
	})
	entries := map[string]string{}
	var items []string
	for i := range 12 {
		items = append(items, fmt.Sprintf("%s/item/%d", o.URL, i))
		entries[fmt.Sprintf("ark:12345/i%d", i)] = items[i]
	}
	c := fast()
	c.HostInterval = targets.Duration(50 * time.Millisecond) // a pass takes 12 × 150 ms, more than the interval
	c.Timeout = targets.Duration(10 * time.Second)           // no check fails: none is due again early
	st := startChecker(t, c, entries)
	for _, target := range items {
		if c := waitState(t, st, target, store.TargetOK); c.Page != target {
			t.Errorf("%s answered with its own page, but its page is %q", target, c.Page)
		}
	}
	testkit.WaitFor(t, "two passes", func() bool { return len(o.seen("")) >= 3*len(items) })
	mu.Lock()
	migrated = true
	mu.Unlock()
	for _, target := range items {
		if c := waitState(t, st, target, store.TargetSuspect); c.Page != target {
			t.Errorf("a target moved to the front page: %+v", c)
		}
	}
	for _, target := range items {
		got := o.seen(strings.TrimPrefix(target, o.URL))
		for i := 1; i < len(got); i++ {
			if d := got[i].at.Sub(got[i-1].at); d < time.Duration(c.Interval) {
				t.Errorf("%s checked twice %v apart, less than the interval", target, d)
				break
			}
		}
	}
}

// A target asked for (CheckNow) while its check is under way is checked
// again once that check's result is written.
func TestCheckerChecksAgainATargetAskedForInFlight(t *testing.T) {
	release := make(chan struct{})
	var o *origin
	o = startOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if len(o.seen("")) == 1 {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	})
	entries := map[string]string{"ark:12345/h": o.URL + "/held"}
	c := fast()
	c.Interval = targets.Duration(time.Hour)
	c.Timeout = targets.Duration(10 * time.Second)
	st := startChecker(t, c, entries)
	checkNow := func() {
		t.Helper()
		if _, err := targets.CheckNow(context.Background(), []table.Table{mustTable(t, entries)}, st, targets.Prefix{}); err != nil {
			t.Fatal(err)
		}
	}
	checkNow()
	testkit.WaitFor(t, "the first check under way", func() bool { return len(o.seen("/held")) == 1 })
	checkNow()
	// The checker takes it again, in flight: its claim is renewed.
	testkit.WaitFor(t, "the target claimed again", func() bool {
		c := checksOf(t, st, o.URL+"/held")[0]
		return c.Due.After(time.Now().Add(30 * time.Minute))
	})
	close(release)
	testkit.WaitFor(t, "a second check", func() bool { return len(o.seen("/held")) == 2 })
	second := o.seen("/held")[1].at
	testkit.WaitFor(t, "its result, due an interval later", func() bool {
		c := checksOf(t, st, o.URL+"/held")[0]
		return c.State == store.TargetOK && c.Checked.After(second) && c.Due.After(time.Now().Add(30*time.Minute))
	})
}
