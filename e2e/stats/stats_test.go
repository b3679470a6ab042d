package stats

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/stats"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// outcomesByShoulder returns a report's counts by shoulder and outcome.
func outcomesByShoulder(r *stats.Report) map[string]map[string]uint64 {
	got := map[string]map[string]uint64{}
	for _, sh := range r.Shoulders {
		got[sh.Shoulder] = sh.Outcomes
	}
	return got
}

// The statistics of a site through GET stats: counts by shoulder, day and
// outcome, top identifiers and the not-found report, before anything is
// written to the store; each key sees what it may read; bad requests get
// 4xx with the reason.
func TestStatsAPI(t *testing.T) {
	s := caddytest.StartAPISite(t, "minter ark:12345/q9 .sdddd\n\t\tstats")
	if got := s.Call("PUT", "/id/ark:12345/x5b1", "editor", `{"target": "https://repo.example.org/b1"}`); got.Status != http.StatusCreated {
		t.Fatalf("bind: %d %s", got.Status, got.Body)
	}
	caddytest.ResolveAll(s, t, caddytest.StatsRequests)
	caddytest.ResolveAll(s, t, map[string]int{"/ark:12345/t1": 302, "/ark:12345/x5nothere": 404})

	r := caddytest.StatsOf(s, "editor", "")
	want := map[string]map[string]uint64{
		"ark:12345/t1": {"redirect": 3},
		"ark:12345/x5": {"redirect": 1},
		"ark:12345":    {"not_found": 3},
		"ark:12345/q9": {"not_found": 1},
	}
	if got := outcomesByShoulder(r); !reflect.DeepEqual(got, want) {
		t.Errorf("editor's shoulders:\n got %v\nwant %v", got, want)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	if r.Total != 8 || r.Unwritten != 8 || len(r.Days) != 30 || r.Days[29].Day != today || r.Days[29].Total != 8 || r.To != today {
		t.Errorf("editor: total %d, unwritten %d, %d days ending %+v; want 8, 8 and the last 30 days ending today", r.Total, r.Unwritten, len(r.Days), r.Days[len(r.Days)-1])
	}
	if want := []stats.IDCount{{ID: "ark:12345/t1", Count: 3}, {ID: "ark:12345/x5b1", Count: 1}}; !reflect.DeepEqual(r.Top, want) {
		t.Errorf("top %v, want %v", r.Top, want)
	}
	wantNotFound := []stats.IDCount{{ID: "ark:12345/x5nothere", Count: 2}, {ID: "ark:12345/q9nothere", Count: 1}, {ID: "ark:12345/x5nothere2", Count: 1}}
	if !reflect.DeepEqual(r.NotFound, wantNotFound) {
		t.Errorf("not found %v, want %v", r.NotFound, wantNotFound)
	}

	// The x5 key reads its shoulder only; requests naming none of the
	// site's are for "*" scopes alone.
	x5 := caddytest.StatsOf(s, "x5", "?days=1")
	if got := outcomesByShoulder(x5); !reflect.DeepEqual(got, map[string]map[string]uint64{"ark:12345/x5": {"redirect": 1}}) || x5.Total != 1 || len(x5.Days) != 1 {
		t.Errorf("x5's report: shoulders %v, total %d, %d days", got, x5.Total, len(x5.Days))
	}
	if want := []stats.IDCount{{ID: "ark:12345/x5nothere", Count: 2}, {ID: "ark:12345/x5nothere2", Count: 1}}; !reflect.DeepEqual(x5.NotFound, want) || len(x5.Top) != 1 {
		t.Errorf("x5's names: top %v, not found %v", x5.Top, x5.NotFound)
	}

	for _, bad := range []struct {
		method, query, key string
		status             int
		says               string
	}{
		{"GET", "", "", 401, "key"},
		{"POST", "", "editor", 405, "GET"},
		{"GET", "?days=0", "editor", 400, "days"},
		{"GET", "?days=801", "editor", 400, "days"},
		{"GET", "?from=2025-13-01", "editor", 400, "from"},
		{"GET", "?from=2025-02-01&to=2025-01-01", "editor", 400, "after"},
		{"GET", "?from=2020-01-01&to=2025-01-01", "editor", 400, "more than"},
		{"GET", "?days=3&from=2025-01-01", "editor", 400, "not both"},
		{"GET", "?day=3", "editor", 400, "unknown parameter day"},
	} {
		got := s.Call(bad.method, "/stats"+bad.query, bad.key, "")
		if got.Status != bad.status || !strings.Contains(got.Body, bad.says) {
			t.Errorf("%s stats%s as %q: %d %s; want %d saying %q", bad.method, bad.query, bad.key, got.Status, got.Body, bad.status, bad.says)
		}
	}
	if r := caddytest.StatsOf(s, "reader", "?from=2020-01-01&to=2020-01-31"); r.Total != 0 || len(r.Days) != 31 || len(r.Top) != 0 {
		t.Errorf("a period without requests: %+v", r)
	}
}

// A site without stats says so; stats without a store, and bad stats
// settings, are refused at load naming why.
func TestStatsConfig(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	if got := s.Call("GET", "/stats", "editor", ""); got.Status != http.StatusNotFound || !strings.Contains(got.Body, "no stats") {
		t.Errorf("GET stats without stats: %d %s", got.Status, got.Body)
	}
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	err := s.Load("ark {\n\t\tnaan 12345\n\t\ttable " + tablePath + "\n\t\tstats\n\t}")
	if err == nil || !strings.Contains(err.Error(), "statistics are kept in the store, and this handler has none") {
		t.Errorf("stats without a store: %v", err)
	}
	for _, bad := range []struct{ block, says string }{
		{"stats {\n\t\t\tflush_interval 10s\n\t\t}", "flush_interval 10s: must be at least 1m0s"},
		{"stats {\n\t\t\ttop 0\n\t\t}", `top: "0" is not a positive number`},
		{"stats {\n\t\t\tnot_found 20000\n\t\t}", "more than the limit, 10000"},
		{"stats {\n\t\t\tretention 1h\n\t\t}", "at least one day"},
		{"stats {\n\t\t\tcolour red\n\t\t}", `unknown subdirective "colour"`},
		{"stats on", "wrong argument count"},
		{"stats\n\t\tstats", "given twice"},
	} {
		err := s.Load(caddytest.APISiteBody(s.DB, s.Table, bad.block))
		if err == nil || !strings.Contains(err.Error(), bad.says) || !strings.Contains(err.Error(), "Caddyfile:") {
			t.Errorf("%q: %v; want a refusal naming the Caddyfile's line and saying %q", bad.block, err, bad.says)
		}
	}
}

// The counts not written yet are written when the configuration is
// unloaded, by a reload or a stop, and survive a restart.
func TestStatsWrittenOnReloadAndStop(t *testing.T) {
	s := caddytest.StartAPISite(t, "stats")
	caddytest.ResolveAll(s, t, map[string]int{"/ark:12345/t1": 302, "/ark:12345/x5nothere": 404})
	if r := caddytest.StatsOf(s, "editor", "?days=1"); r.Total != 2 || r.Unwritten != 2 {
		t.Fatalf("before the reload: total %d, unwritten %d; want 2, 2", r.Total, r.Unwritten)
	}
	if err := s.Load(caddytest.APISiteBody(s.DB, s.Table, "stats {\n\t\t\ttop 50\n\t\t}")); err != nil {
		t.Fatal(err)
	}
	if r := caddytest.StatsOf(s, "editor", "?days=1"); r.Total != 2 || r.Unwritten != 0 || len(r.NotFound) != 1 {
		t.Fatalf("after the reload: total %d, unwritten %d, not found %v; want 2 written, and the name", r.Total, r.Unwritten, r.NotFound)
	}
	caddytest.ResolveAll(s, t, map[string]int{"/ark:12345/t1": 302})
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	restarted := &caddytest.APISite{Site: caddytest.StartSite(t, caddytest.APISiteBody(s.DB, s.Table, "stats")), DB: s.DB, Table: s.Table}
	r := caddytest.StatsOf(restarted, "editor", "?days=1")
	if r.Total != 3 || r.Unwritten != 0 || !reflect.DeepEqual(r.Top, []stats.IDCount{{ID: "ark:12345/t1", Count: 2}}) {
		t.Errorf("after a stop and a start: total %d, unwritten %d, top %v; want 3 written, t1 twice", r.Total, r.Unwritten, r.Top)
	}
}

// With PostgreSQL too: counts are written on reload and stop, survive a
// restart, and add to what the store holds.
func TestStatsPostgres(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	body := func(more string) string {
		return strings.Replace(caddytest.APISiteBody("BOLT", tablePath, more), "store bolt BOLT", "store postgres "+dsn, 1)
	}
	s := &caddytest.APISite{Site: caddytest.StartSite(t, body("stats")), Table: tablePath}
	caddytest.ResolveAll(s, t, map[string]int{"/ark:12345/t1": 302, "/ark:12345/x5nothere": 404})
	if err := s.Load(body("stats {\n\t\t\ttop 50\n\t\t}")); err != nil {
		t.Fatal(err)
	}
	if r := caddytest.StatsOf(s, "editor", "?days=1"); r.Total != 2 || r.Unwritten != 0 {
		t.Fatalf("after the reload: total %d, unwritten %d; want 2 written", r.Total, r.Unwritten)
	}
	caddytest.ResolveAll(s, t, map[string]int{"/ark:12345/x5nothere": 404})
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	restarted := &caddytest.APISite{Site: caddytest.StartSite(t, body("stats")), Table: tablePath}
	r := caddytest.StatsOf(restarted, "editor", "?days=1")
	if r.Total != 3 || r.Unwritten != 0 || !reflect.DeepEqual(r.NotFound, []stats.IDCount{{ID: "ark:12345/x5nothere", Count: 2}}) {
		t.Errorf("after a stop and a start: total %d, unwritten %d, not found %v; want 3 written, x5nothere twice", r.Total, r.Unwritten, r.NotFound)
	}
}
