package stats

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// site is a resolver and a bolt store to count its answers in.
type site struct {
	rs    *resolve.Resolver
	store store.StatsStore
	path  string
}

// newSite resolves ark:12345/x5a and ark:12345/x5b (table entries, one
// with passthrough), ark:12345/t7… (a template) and urn:isbn:1 (an
// entry), with its store in a bolt file.
func newSite(t testing.TB) *site {
	t.Helper()
	yes := true
	tbl, err := table.Open(nil, []table.Entry{
		{ID: "ark:12345/x5a", Target: "https://example.org/a"},
		{ID: "ark:12345/x5b", Target: "https://example.org/b", Passthrough: &yes},
		{ID: "ark:12345/plain", Target: "https://example.org/plain"},
		{ID: "urn:isbn:1", Target: "https://example.org/isbn"},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, MaxLength: 1024,
		Templates: []resolve.Template{{Prefix: "ark:12345/t7", Target: "https://example.org/t/{ark.name}"}},
		Foreign:   "https://n2t.net"})
	if err != nil {
		t.Fatal(err)
	}
	s := &site{rs: rs, path: filepath.Join(t.TempDir(), "store.db")}
	s.store = s.open(t)
	return s
}

// open opens the site's store file, until the test ends.
func (s *site) open(t testing.TB) store.StatsStore {
	return testkit.Provision(t, &bolt.Store{Path: s.path})
}

// collector starts a collector of the site's answers for cfg, closed when
// the test ends.
func (s *site) collector(t *testing.T, cfg Config, o Options) *Collector {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if o.Store == nil {
		o.Store = s.store
	}
	o.Ours = s.rs.Ours
	c := New(cfg, o)
	t.Cleanup(func() { c.Close() })
	return c
}

// observe resolves each core and counts its answer.
func (s *site) observe(c *Collector, cores ...string) {
	for _, core := range cores {
		res := s.rs.Resolve(context.Background(), core)
		c.Observe(res, res.Outcome)
	}
}

// today is the day of now, as reports name it.
func today() string { return time.Now().UTC().Format(dayLayout) }

// report is c's report of today, for every reader.
func report(t *testing.T, c *Collector) *Report {
	t.Helper()
	r, err := c.Report(context.Background(), Query{From: today(), To: today()})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// hour keeps flushes out of a test, but for Close.
var hour = Options{flushInterval: time.Hour}

func TestCountsByShoulderOutcomeAndName(t *testing.T) {
	s := newSite(t)
	c := s.collector(t, Config{}, Options{flushInterval: time.Hour, Shoulders: []string{"ark:12345/q9"}})
	s.observe(c,
		"ark:12345/x5a", "ark:/12345/x5a", "ark:12345/x5a", // one identifier, two spellings
		"ark:12345/x5b/c1.pdf",                // through its ancestor
		"ark:12345/t7zz", "ark:12345/t7zz.en", // a template
		"ark:12345/plain",                            // no first-digit shoulder: its NAAN
		"ark:12345/x5nothere", "ark:12345/x5nothere", // ours, not found: no shoulder is taken from what a client typed
		"ark:12345/q9nothere",      // not found under a configured shoulder
		"urn:isbn:1", "urn:isbn:2", // a URN assigned, one not
		"ark:54321/foreign", // another NAAN's
		"ark:12345/x5a%zz",  // invalid
	)
	r := report(t, c)
	got := map[string]map[string]uint64{}
	for _, sh := range r.Shoulders {
		got[sh.Shoulder] = sh.Outcomes
		if len(sh.Days) != 1 || sh.Days[0] != sh.Total {
			t.Errorf("%q: days %v, total %d", sh.Shoulder, sh.Days, sh.Total)
		}
	}
	want := map[string]map[string]uint64{
		"ark:12345/x5": {"redirect": 4},
		"ark:12345/t7": {"redirect": 2},
		"ark:12345":    {"redirect": 1, "not_found": 2},
		"ark:12345/q9": {"not_found": 1},
		"urn:isbn":     {"redirect": 1},
		"":             {"not_found": 1, "foreign": 1, "invalid": 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shoulders:\n got %v\nwant %v", got, want)
	}
	if r.Total != 14 || r.Unwritten != 14 || r.Dropped != 0 || len(r.Days) != 1 || r.Days[0].Total != 14 || r.Outcomes["redirect"] != 8 {
		t.Errorf("total %d, unwritten %d, dropped %d, days %+v, outcomes %v", r.Total, r.Unwritten, r.Dropped, r.Days, r.Outcomes)
	}
	wantTop := []IDCount{{"ark:12345/x5a", 3}, {"ark:12345/t7zz", 2}, {"ark:12345/plain", 1}, {"ark:12345/x5b", 1}, {"urn:isbn:1", 1}}
	if !reflect.DeepEqual(r.Top, wantTop) {
		t.Errorf("top:\n got %v\nwant %v", r.Top, wantTop)
	}
	wantNotFound := []IDCount{{"ark:12345/x5nothere", 2}, {"ark:12345/q9nothere", 1}}
	if !reflect.DeepEqual(r.NotFound, wantNotFound) {
		t.Errorf("not found:\n got %v\nwant %v", r.NotFound, wantNotFound)
	}

	// A reader sees only what it may.
	scoped, err := c.Report(context.Background(), Query{From: today(), To: today(),
		Shoulder: func(sh string) bool { return sh == "ark:12345/x5" },
		ID:       func(id string) bool { return id == "ark:12345/x5nothere" }})
	if err != nil {
		t.Fatal(err)
	}
	if scoped.Total != 4 || len(scoped.Shoulders) != 1 || len(scoped.Top) != 0 || !reflect.DeepEqual(scoped.NotFound, wantNotFound[:1]) || scoped.Unwritten != 4 {
		t.Errorf("scoped report: %+v", scoped)
	}

	// Closing writes the counts; a new collector reads them back, written.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Report(context.Background(), Query{From: today(), To: today()}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("a report after Close: %v, want ErrUnavailable", err)
	}
	again := report(t, s.collector(t, Config{}, hour))
	if again.Total != 14 || again.Unwritten != 0 || !reflect.DeepEqual(again.Top, wantTop) || !reflect.DeepEqual(again.NotFound, wantNotFound) {
		t.Errorf("after Close, read back: %+v", again)
	}
}

// Every flush interval, what was counted is written; a report counts it
// once, written or not.
func TestFlushEveryInterval(t *testing.T) {
	s := newSite(t)
	c := s.collector(t, Config{}, Options{flushInterval: 10 * time.Millisecond})
	s.observe(c, "ark:12345/x5a", "ark:12345/nothere")
	testkit.WaitFor(t, "the counts written", func() bool {
		kept, err := s.store.ReadStats(context.Background(), today(), today())
		return err == nil && len(kept.Resolutions) == 2
	})
	for range 3 { // a report during flushes sees each answer once
		if r := report(t, c); r.Total != 2 || r.Top[0].Count != 1 || r.NotFound[0].Count != 1 {
			t.Fatalf("report: %+v", r)
		}
	}
	s.observe(c, "ark:12345/x5a")
	if r := report(t, c); r.Total != 3 || r.Top[0].Count != 2 {
		t.Errorf("report with an answer not written yet: %+v", r)
	}
}

// The lists hold the most requested names, as many as configured, in the
// report and in the store.
func TestListsAreCapped(t *testing.T) {
	s := newSite(t)
	c := s.collector(t, Config{Top: 2, NotFound: 3}, hour)
	for i, n := range []int{5, 1, 4, 2, 3} {
		for range n {
			s.observe(c, "ark:12345/t7"+string(rune('a'+i)), "ark:12345/n"+string(rune('a'+i)))
		}
	}
	check := func(r *Report) {
		t.Helper()
		if want := []IDCount{{"ark:12345/t7a", 5}, {"ark:12345/t7c", 4}}; !reflect.DeepEqual(r.Top, want) {
			t.Errorf("top %v, want %v", r.Top, want)
		}
		if want := []IDCount{{"ark:12345/na", 5}, {"ark:12345/nc", 4}, {"ark:12345/ne", 3}}; !reflect.DeepEqual(r.NotFound, want) {
			t.Errorf("not found %v, want %v", r.NotFound, want)
		}
	}
	check(report(t, c))
	c.Close()
	kept, err := s.store.ReadStats(context.Background(), today(), today())
	if err != nil {
		t.Fatal(err)
	}
	if len(kept.Top) != 2 || len(kept.NotFound) != 3 {
		t.Errorf("the store keeps %d top and %d not-found names, want 2 and 3", len(kept.Top), len(kept.NotFound))
	}
	check(report(t, s.collector(t, Config{Top: 2, NotFound: 3}, hour)))
}

// Days older than the retention are dropped when a collector starts, and
// once a day after; a day just within it stays.
func TestRetention(t *testing.T) {
	s := newSite(t)
	ctx := context.Background()
	row := func(day string) store.ResolutionCount {
		return store.ResolutionCount{Day: day, Shoulder: "ark:12345", Outcome: "redirect", Count: 1}
	}
	add := func(days ...string) {
		t.Helper()
		var rows []store.ResolutionCount
		for _, d := range days {
			rows = append(rows, row(d))
		}
		if err := s.store.AddStats(ctx, &store.Stats{Resolutions: rows}, store.StatsKeep{}); err != nil {
			t.Fatal(err)
		}
	}
	kept := func() []string {
		got, err := s.store.ReadStats(ctx, "2000-01-01", "2100-01-01")
		if err != nil {
			t.Fatal(err)
		}
		var days []string
		for _, r := range got.Resolutions {
			days = append(days, r.Day)
		}
		return days
	}
	add("2024-05-14", "2024-05-15", "2025-06-15")
	var mu sync.Mutex
	now := time.Date(2025, 6, 15, 23, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c := s.collector(t, Config{}, Options{now: clock, flushInterval: 10 * time.Millisecond})
	testkit.WaitFor(t, "the 13 months' retention", func() bool { return reflect.DeepEqual(kept(), []string{"2024-05-15", "2025-06-15"}) })
	mu.Lock()
	now = now.Add(2 * time.Hour) // the next day: 2024-05-15 is now too old
	mu.Unlock()
	testkit.WaitFor(t, "the next day's drop", func() bool { return reflect.DeepEqual(kept(), []string{"2025-06-15"}) })
	c.Close()

	add("2025-06-13", "2025-06-14")
	s.collector(t, Config{Retention: caddy.Duration(48 * time.Hour)}, Options{now: clock, flushInterval: time.Hour})
	testkit.WaitFor(t, "a retention of 2 days", func() bool { return reflect.DeepEqual(kept(), []string{"2025-06-14", "2025-06-15"}) })
}

// When the counting falls behind, answers are dropped, not waited for,
// and counted as dropped.
func TestDropsWhenBehind(t *testing.T) {
	s := newSite(t)
	c := s.collector(t, Config{}, hour)
	res := s.rs.Resolve(context.Background(), "ark:12345/x5a")
	c.mu.Lock() // the counting goroutine waits for it with one answer at most
	const n = queueSize + 100
	for range n {
		c.Observe(res, res.Outcome)
	}
	dropped := c.Dropped()
	c.mu.Unlock()
	if dropped < 99 || dropped > 100 {
		t.Errorf("%d answers dropped, want 99 or 100", dropped)
	}
	r := report(t, c)
	if r.Total+r.Dropped != n || r.Dropped != dropped {
		t.Errorf("total %d + dropped %d, want %d", r.Total, r.Dropped, n)
	}
}

// Answers observed from many goroutines while reports and flushes run are
// each counted once, or dropped.
func TestConcurrentObserve(t *testing.T) {
	s := newSite(t)
	c := s.collector(t, Config{}, Options{flushInterval: 5 * time.Millisecond})
	cores := []string{"ark:12345/x5a", "ark:12345/nothere", "urn:isbn:1", "ark:54321/x"}
	const writers, each = 8, 2000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				s.observe(c, cores[(w+i)%len(cores)])
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			report(t, c)
		}
	}
	r := report(t, c)
	if r.Total+r.Dropped != writers*each {
		t.Errorf("total %d + dropped %d, want %d", r.Total, r.Dropped, writers*each)
	}
}
