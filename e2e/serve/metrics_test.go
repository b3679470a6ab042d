package serve

import (
	"os"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/table"
)

func TestMetricsAtTheAdminEndpointSurviveAReload(t *testing.T) {
	path := testkit.WriteFile(t, "arks.json", caddytest.TableJSON(t,
		table.Entry{ID: "ark:12345/x5wf6789", Target: "/objects/x5wf6789.html"},
		table.Entry{ID: "ark:12345/k8m2n4", Target: "https://repo.example.org/k8m2n4"},
		table.Entry{ID: "ark:12345/efgh", Target: "https://repo.example.org/efgh", Status: 303},
		table.Entry{ID: "ark:12345/g5h6j7", Status: 410},
	))
	body := `
	root * ` + caddytest.SiteRoot(t) + `
	ark {
		naan 12345
		table ` + path + `
		map urn:nbn:de:101-2024 /objects/thesis.html
		max_length 300
	}
	file_server`
	s := caddytest.NewOpsSite(t)
	// The counters belong to the process, not to a config: other tests
	// have counted before, so this one looks at differences.
	if err := s.Load(body); err != nil {
		t.Fatal(err)
	}
	before := s.Metrics()
	if got := before["caddy_ark_table_entries"]; got != 5 {
		t.Errorf("caddy_ark_table_entries = %v, want 5", got)
	}

	requests := map[resolve.Outcome][]string{
		resolve.OutcomeInPlace:  {"/ark:12345/x5wf6789", "/urn:nbn:de:101-2024"},
		resolve.OutcomeRedirect: {"/ark:/12345/k8m2n4"},
		resolve.OutcomeRelated:  {"/ark:12345/efgh"},
		resolve.OutcomeGone:     {"/ark:12345/g5h6j7"},
		resolve.OutcomeNotFound: {"/ark:12345/nope", "/urn:example:nope"},
		resolve.OutcomeInvalid:  {"/ark:12345", "/ark:99999/x"},
		resolve.OutcomeTooLong:  {"/ark:12345/" + strings.Repeat("x", 400)},
		resolve.OutcomeForeign:  {"/ark:54321/elsewhere"},
		resolve.OutcomeMetadata: {"/ark:12345/x5wf6789?info", "/ark:12345/k8m2n4??", "/ark:12345/g5h6j7?"},
	}
	// ARKs that are in the table, in any spelling, and ARKs refused as
	// they are read, are answered without the cache; every other request
	// asks it.
	inTable := map[string]bool{"ark:12345/x5wf6789": true, "ark:12345/k8m2n4": true, "ark:/12345/k8m2n4": true, "ark:12345/efgh": true, "ark:12345/g5h6j7": true,
		"ark:12345": true, "ark:12345/" + strings.Repeat("x", 400): true}
	want, direct := map[resolve.Outcome]int{}, 0
	for o, paths := range requests {
		for _, p := range paths {
			if got := s.Get(p); got.Status >= 500 {
				t.Fatalf("%s: %d", p, got.Status)
			}
			want[o]++
			if core, _, _ := strings.Cut(p[1:], "?"); inTable[core] {
				direct++
			}
		}
	}
	// A hit needs the entry stored, which ristretto does asynchronously.
	// An ARK of the table is answered from it without the cache, in any
	// spelling: one it does not hold goes through the cache.
	testkit.WaitFor(t, "a cache hit", func() bool {
		s.Get("/ark:/12345/x5-nope")
		want[resolve.OutcomeNotFound]++
		return s.Metrics()["caddy_ark_cache_hits_total"] > before["caddy_ark_cache_hits_total"]
	})

	after := s.Metrics()
	total := 0
	for o := range resolve.Outcome(resolve.NumOutcomes) {
		series := caddytest.Resolutions(o)
		if _, ok := after[series]; !ok {
			t.Errorf("/metrics has no %s", series)
		}
		total += want[o]
		if got := after[series] - before[series]; got != float64(want[o]) {
			t.Errorf("%s went up by %v, want %d", series, got, want[o])
		}
	}
	lookups := after["caddy_ark_cache_hits_total"] + after["caddy_ark_cache_misses_total"] -
		before["caddy_ark_cache_hits_total"] - before["caddy_ark_cache_misses_total"]
	if lookups != float64(total-direct) {
		t.Errorf("cache hits + misses went up by %v for %d requests, %d of them answered without the cache", lookups, total, direct)
	}

	// A reload of the same config keeps the counts and shares the table:
	// no load is counted.
	if err := s.Load(body); err != nil {
		t.Fatal(err)
	}
	// The old admin server may take a new connection until Caddy has shut
	// it down: its registry's handlers are gone and it shows no entries.
	var reloaded map[string]float64
	testkit.WaitFor(t, "caddy_ark_table_entries = 5 after the reload", func() bool {
		reloaded = s.Metrics()
		return reloaded["caddy_ark_table_entries"] == 5
	})
	for _, series := range []string{caddytest.Resolutions(resolve.OutcomeInPlace), caddytest.Resolutions(resolve.OutcomeNotFound), "caddy_ark_cache_hits_total",
		"caddy_ark_cache_misses_total", caddytest.TableLoads("config", "ok"), "caddy_ark_table_entries"} {
		if reloaded[series] != after[series] {
			t.Errorf("%s: %v before the reload, %v after", series, after[series], reloaded[series])
		}
	}
	s.Get("/ark:12345/nope")
	if got := s.Metrics()[caddytest.Resolutions(resolve.OutcomeNotFound)]; got != after[caddytest.Resolutions(resolve.OutcomeNotFound)]+1 {
		t.Errorf("after the reload, a 404 took %s from %v to %v", caddytest.Resolutions(resolve.OutcomeNotFound), after[caddytest.Resolutions(resolve.OutcomeNotFound)], got)
	}

	// An edited table is read again; a bad one is counted as an error.
	if err := os.WriteFile(path, []byte(caddytest.TableJSON(t,
		table.Entry{ID: "ark:12345/x5wf6789", Target: "/objects/x5wf6789.html"},
		table.Entry{ID: "ark:12345/new", Target: "/new"},
	)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Load(body); err != nil {
		t.Fatal(err)
	}
	var edited map[string]float64
	testkit.WaitFor(t, "caddy_ark_table_entries = 3 after the edit", func() bool {
		edited = s.Metrics()
		return edited["caddy_ark_table_entries"] == 3
	})
	if got := edited[caddytest.TableLoads("config", "ok")] - after[caddytest.TableLoads("config", "ok")]; got != 1 {
		t.Errorf("an edited table was read %v times", got)
	}
	if err := os.WriteFile(path, []byte(`{"entries": [{"id": "ark:12345/x", "target": "/x", "status": 301}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Load(body); err == nil {
		t.Fatal("a table with a 301 loaded")
	}
	if got := s.Metrics()[caddytest.TableLoads("config", "error")] - edited[caddytest.TableLoads("config", "error")]; got != 1 {
		t.Errorf("a bad table counted %v errors", got)
	}
}
