package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/store"
)

// runDump checks store.Dumper: a dump loaded into an empty store dumps
// the same bytes, reads the same statistics, survives a restart, and the
// store goes on from it; a store that holds anything (statistics alone
// included), and a dump cut short or out of order, are refused and keep
// nothing; a dump of version 1, without statistics, loads.
func runDump(t *testing.T, open func(t *testing.T) store.Store, reopen func(t *testing.T, s store.Store) store.Store) {
	ctx := context.Background()
	dumper := func(t *testing.T, s store.Store) store.Dumper {
		t.Helper()
		d := s
		return d
	}
	dump := func(t *testing.T, s store.Store) string {
		t.Helper()
		var buf bytes.Buffer
		if _, err := store.WriteDump(ctx, dumper(t, s), &buf); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	statsOf := func(t *testing.T, s store.Store) store.StatsStore {
		t.Helper()
		ss := s
		return ss
	}
	// allStats reads every day's statistics of s.
	allStats := func(t *testing.T, s store.Store) *store.Stats {
		t.Helper()
		got, err := statsOf(t, s).ReadStats(ctx, "0001-01-01", "9999-12-31")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// fill gives s one of everything a store holds.
	fill := func(t *testing.T, s store.Store) {
		t.Helper()
		// Statistics of two days, of every list, the top of one day longer
		// than the next AddStats keeps: a load keeps the counts as they
		// are.
		if err := statsOf(t, s).AddStats(ctx, &store.Stats{
			Resolutions: []store.ResolutionCount{
				{Day: "2025-03-02", Shoulder: "ark:12345/x5", Outcome: "redirect", Count: 9},
				{Day: "2025-03-01", Shoulder: "", Outcome: "invalid", Count: 2},
				{Day: "2025-03-01", Shoulder: "ark:12345/x5", Outcome: "not_found", Count: 1 << 40},
				{Day: "2025-03-01", Shoulder: "ark:12345", Outcome: "redirect", Count: 1},
			},
			Top:      []store.NameCount{{Day: "2025-03-01", ID: "ark:12345/x5b", Count: 7}, {Day: "2025-03-01", ID: "ark:12345/x5a", Count: 7}, {Day: "2025-03-02", ID: "ark:12345/x5a", Count: 2}},
			NotFound: []store.NameCount{{Day: "2025-03-01", ID: "ark:12345/x5zz", Count: 1}, {Day: "2025-03-02", ID: "ark:12345/x5a", Count: 6}},
		}, store.StatsKeep{Top: 10, NotFound: 10}); err != nil {
			t.Fatal(err)
		}
		MustApply(t, s, store.Write{Binding: store.Binding{Key: "ark:12345/d1", Target: "https://example.org/1", Status: 302,
			Meta: map[string]string{"who": "Ada", "what": "\"quoted\" <b> \u2028 дневник"}}, By: "alice"})
		MustApply(t, s, store.Write{Binding: store.Binding{Key: "ark:12345/d1", Target: "/objects/d1.html", Status: 200}, IfVersion: 1, By: "bob"})
		MustApply(t, s, store.Write{Binding: store.Binding{Key: "ark:12345/d2", Target: "https://example.org/2", Status: 307}, By: "alice"})
		MustApply(t, s, store.Write{Binding: store.Binding{Key: "ark:12345/d2", Status: 410, Passthrough: true, Reason: "duplicate"}, By: "carol"})
		if _, err := s.Reserve(ctx, []store.Binding{{Key: "ark:12345/d3"}, {Key: "ark:12345/d0", Target: "/0", Status: 200}}, "minter"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Import(ctx, Feed([]*store.Binding{{Key: "urn:isbn:9780306406157", Target: "https://books.example.org/x", Status: 303, Passthrough: true}}, nil), "importer"); err != nil {
			t.Fatal(err)
		}
		for name, n := range map[string]uint64{"ark:12345/x5": 7, "ark:12345/x7": 1 << 40} {
			if _, err := s.Count(ctx, name, n); err != nil {
				t.Fatal(err)
			}
		}
	}

	t.Run("Dump and Load copy everything, history included", func(t *testing.T) {
		src := open(t)
		fill(t, src)
		first := dump(t, src)
		for _, want := range []string{`"id":"ark:12345/d3"`, `"reason":"duplicate"`, `"by":"carol"`, `"counter":{"name":"ark:12345/x7","value":1099511627776}`,
			`{"stat":{"day":"2025-03-01","list":"not_found","id":"ark:12345/x5zz","count":1}}` + "\n" +
				`{"stat":{"day":"2025-03-01","list":"resolutions","outcome":"invalid","count":2}}` + "\n" +
				`{"stat":{"day":"2025-03-01","list":"resolutions","shoulder":"ark:12345","outcome":"redirect","count":1}}` + "\n" +
				`{"stat":{"day":"2025-03-01","list":"resolutions","shoulder":"ark:12345/x5","outcome":"not_found","count":1099511627776}}` + "\n" +
				`{"stat":{"day":"2025-03-01","list":"top","id":"ark:12345/x5a","count":7}}` + "\n" +
				`{"stat":{"day":"2025-03-01","list":"top","id":"ark:12345/x5b","count":7}}` + "\n" +
				`{"stat":{"day":"2025-03-02","list":"not_found","id":"ark:12345/x5a","count":6}}` + "\n" +
				`{"stat":{"day":"2025-03-02","list":"resolutions","shoulder":"ark:12345/x5","outcome":"redirect","count":9}}` + "\n" +
				`{"stat":{"day":"2025-03-02","list":"top","id":"ark:12345/x5a","count":2}}` + "\n" +
				`{"end":{"bindings":5,"changes":7,"counters":2,"stats":9}}`} {
			if !strings.Contains(first, want) {
				t.Errorf("the dump lacks %s:\n%s", want, first)
			}
		}
		dst := open(t)
		counts, err := store.ReadDump(ctx, dumper(t, dst), strings.NewReader(first))
		if err != nil {
			t.Fatal(err)
		}
		if counts != (store.DumpCounts{Bindings: 5, Changes: 7, Counters: 2, Stats: 9}) {
			t.Errorf("loaded %v", counts)
		}
		if again := dump(t, dst); again != first {
			t.Errorf("the loaded store dumps differently:\nfirst:\n%s\nagain:\n%s", first, again)
		}
		want := allStats(t, src)
		if got := allStats(t, dst); !reflect.DeepEqual(got, want) {
			t.Errorf("the loaded store's statistics:\n got %+v\nwant %+v", got, want)
		}
		dst = reopen(t, dst)
		if again := dump(t, dst); again != first {
			t.Errorf("after a restart, the loaded store dumps differently:\n%s", again)
		}
		if got := allStats(t, dst); !reflect.DeepEqual(got, want) {
			t.Errorf("after a restart, the loaded store's statistics:\n got %+v\nwant %+v", got, want)
		}
		// It goes on from the dump: versions, history, counters.
		_, hist, err := dst.Get(ctx, "ark:12345/d1")
		if err != nil || len(hist) != 2 || hist[1].By != "bob" || hist[1].Old == nil || hist[1].Old.Target != "https://example.org/1" {
			t.Fatalf("history of d1: %+v, %v", hist, err)
		}
		next := MustApply(t, dst, store.Write{Binding: store.Binding{Key: "ark:12345/d1", Target: "/objects/d1.pdf", Status: 200}, IfVersion: 2, By: "dave"})
		_, hist, err = dst.Get(ctx, "ark:12345/d1")
		if err != nil || next.Version != 3 || len(hist) != 3 || hist[2].Seq <= 7 {
			t.Errorf("a change after the load: version %d, history %+v, %v", next.Version, hist, err)
		}
		if v, err := dst.Count(ctx, "ark:12345/x5", 1); err != nil || v != 7 {
			t.Errorf("counter after the load: %d, %v; want 7", v, err)
		}
		if _, err := dst.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/d2", Target: "/again", Status: 200}, By: "k"}); !errors.Is(err, store.ErrWithdrawn) {
			t.Errorf("rebinding a loaded withdrawal: %v, want ErrWithdrawn", err)
		}
		if err := statsOf(t, dst).AddStats(ctx, &store.Stats{Resolutions: []store.ResolutionCount{{Day: "2025-03-02", Shoulder: "ark:12345/x5", Outcome: "redirect", Count: 1}}}, store.StatsKeep{Top: 10, NotFound: 10}); err != nil {
			t.Fatal(err)
		}
		got, err := statsOf(t, dst).ReadStats(ctx, "2025-03-02", "2025-03-02")
		if err != nil || len(got.Resolutions) != 1 || got.Resolutions[0].Count != 10 {
			t.Errorf("counts added after the load: %+v, %v; want 9+1 redirects", got, err)
		}
	})

	t.Run("Load reads a dump of version 1, which holds no statistics", func(t *testing.T) {
		src := open(t)
		fill(t, src)
		if err := statsOf(t, src).DropStats(ctx, "9999-12-31"); err != nil {
			t.Fatal(err)
		}
		current := dump(t, src)
		old := strings.Replace(current, `{"format":"caddy-ark store dump","version":2}`, `{"format":"caddy-ark store dump","version":1}`, 1)
		old = strings.Replace(old, `"counters":2,"stats":0}}`, `"counters":2}}`, 1)
		if old == current || strings.Contains(old, `"stats"`) {
			t.Fatalf("the dump is not as this test expects it:\n%s", current)
		}
		dst := open(t)
		counts, err := store.ReadDump(ctx, dumper(t, dst), strings.NewReader(old))
		if err != nil || counts != (store.DumpCounts{Bindings: 5, Changes: 7, Counters: 2}) {
			t.Fatalf("a dump of version 1: %v, %v", counts, err)
		}
		if again := dump(t, dst); again != current {
			t.Errorf("a dump of version 1 loaded dumps:\n%s\nwant:\n%s", again, current)
		}
		withStat := strings.Replace(old, `{"end"`, `{"stat":{"day":"2025-03-01","list":"top","id":"ark:12345/x5a","count":7}}`+"\n"+`{"end"`, 1)
		if _, err := store.ReadDump(ctx, dumper(t, open(t)), strings.NewReader(withStat)); err == nil || !strings.Contains(err.Error(), "version 1") {
			t.Errorf("a dump of version 1 holding statistics: %v", err)
		}
	})

	t.Run("WriteDumpNoStats writes version 1, the statistics left out only when told", func(t *testing.T) {
		src := open(t)
		fill(t, src)
		current := dump(t, src)
		rows := len(allStats(t, src).Resolutions) + len(allStats(t, src).Top) + len(allStats(t, src).NotFound)
		var buf bytes.Buffer
		_, _, err := store.WriteDumpNoStats(ctx, dumper(t, src), &buf, false)
		var refused *store.StatsNotDumpedError
		if !errors.As(err, &refused) || refused.Rows != rows || rows == 0 || buf.Len() != 0 {
			t.Fatalf("version 1 of a store with %d statistics rows: %v, %d bytes written; want it refused before writing", rows, err, buf.Len())
		}
		written, leftOut, err := store.WriteDumpNoStats(ctx, dumper(t, src), &buf, true)
		if err != nil || leftOut != rows || written != (store.DumpCountsNoStats{Bindings: 5, Changes: 7, Counters: 2}) {
			t.Fatalf("version 1, without statistics: %v, %d left out, %v", written, leftOut, err)
		}
		var kept []string
		for _, line := range strings.SplitAfter(current, "\n") {
			if !strings.HasPrefix(line, `{"stat":`) {
				kept = append(kept, line)
			}
		}
		want := strings.Replace(strings.Join(kept, ""), `{"format":"caddy-ark store dump","version":2}`, `{"format":"caddy-ark store dump","version":1}`, 1)
		want = strings.Replace(want, fmt.Sprintf(`"counters":2,"stats":%d}}`, rows), `"counters":2}}`, 1)
		if buf.String() != want {
			t.Errorf("version 1, without statistics:\n%s\nwant:\n%s", buf.String(), want)
		}
		dst := open(t)
		if _, err := store.ReadDump(ctx, dumper(t, dst), &buf); err != nil {
			t.Fatalf("loading the dump of version 1: %v", err)
		}
		if st := allStats(t, dst); len(st.Resolutions)+len(st.Top)+len(st.NotFound) != 0 {
			t.Errorf("a store loaded from version 1 holds statistics: %+v", st)
		}
		if err := statsOf(t, src).DropStats(ctx, "9999-12-31"); err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		if _, leftOut, err := store.WriteDumpNoStats(ctx, dumper(t, src), &buf, false); err != nil || leftOut != 0 || buf.String() != want {
			t.Errorf("version 1 of a store without statistics: %d left out, %v:\n%s\nwant:\n%s", leftOut, err, buf.String(), want)
		}
	})

	t.Run("Load refuses a store that holds anything, and a dump cut short or out of order", func(t *testing.T) {
		src := open(t)
		fill(t, src)
		full := dump(t, src)
		for name, prepare := range map[string]func(store.Store){
			"a binding": func(s store.Store) {
				MustApply(t, s, store.Write{Binding: store.Binding{Key: "ark:12345/other", Target: "/o", Status: 200}, By: "k"})
			},
			"a counter": func(s store.Store) {
				if _, err := s.Count(ctx, "ark:12345/x9", 1); err != nil {
					t.Fatal(err)
				}
			},
			"statistics only": func(s store.Store) {
				if err := statsOf(t, s).AddStats(ctx, &store.Stats{NotFound: []store.NameCount{{Day: "2025-01-01", ID: "ark:12345/nope", Count: 1}}}, store.StatsKeep{Top: 1, NotFound: 1}); err != nil {
					t.Fatal(err)
				}
			},
		} {
			s := open(t)
			prepare(s)
			before := dump(t, s)
			if _, err := store.ReadDump(ctx, dumper(t, s), strings.NewReader(full)); !errors.Is(err, store.ErrNotEmpty) {
				t.Errorf("a store holding %s: %v, want ErrNotEmpty", name, err)
			}
			if after := dump(t, s); after != before {
				t.Errorf("a refused load into a store holding %s changed it:\n%s", name, after)
			}
		}

		lines := strings.SplitAfter(full, "\n")
		lines = lines[:len(lines)-1] // the empty string after the last newline
		swap := func(i, j int) string {
			swapped := append([]string(nil), lines...)
			swapped[i], swapped[j] = swapped[j], swapped[i]
			return strings.Join(swapped, "")
		}
		last := len(lines) - 2 // the last statistics row
		if !strings.HasPrefix(lines[last], `{"stat":`) || !strings.HasPrefix(lines[last-1], `{"stat":`) {
			t.Fatalf("the dump does not end with statistics:\n%s", full)
		}
		withLastStat := func(old, new string) string {
			changed := strings.Replace(lines[last], old, new, 1)
			if changed == lines[last] {
				t.Fatalf("the last statistics row lacks %s: %s", old, lines[last])
			}
			return strings.Join(lines[:last], "") + changed + lines[last+1]
		}
		bad := map[string]string{
			"cut short":                    strings.Join(lines[:len(lines)-1], ""),
			"cut mid-history":              strings.Join(lines[:8], ""),
			"cut mid-statistics":           strings.Join(lines[:last], ""),
			"out of order":                 swap(1, 2),
			"with statistics out of order": swap(last-1, last),
			"with a statistics row twice":  strings.Join(lines[:last+1], "") + lines[last] + strings.Replace(lines[last+1], `"stats":9`, `"stats":10`, 1),
			"with a day that is none":      withLastStat(`"day":"2025-03-02"`, `"day":"2025-03-32"`),
			"with an unknown list":         withLastStat(`"list":"top"`, `"list":"unknown"`),
			"with a name row's outcome":    withLastStat(`"count"`, `"outcome":"redirect","count"`),
			"miscounted":                   strings.Join(lines[:len(lines)-1], "") + `{"end":{"bindings":5,"changes":7,"counters":2,"stats":8}}` + "\n",
			"without a header":             strings.Join(lines[1:], ""),
			"with more after":              full + full,
			"an unknown field":             strings.Replace(full, `"by":"carol"`, `"by":"carol","extra":1`, 1),
			"of version 3":                 strings.Replace(full, `"version":2`, `"version":3`, 1),
		}
		s := open(t)
		empty := dump(t, s)
		for name, in := range bad {
			if _, err := store.ReadDump(ctx, dumper(t, s), strings.NewReader(in)); err == nil {
				t.Errorf("a dump %s: loaded", name)
			}
			if after := dump(t, s); after != empty {
				t.Fatalf("a dump %s kept something:\n%s", name, after)
			}
			if got := allStats(t, s); len(got.Resolutions)+len(got.Top)+len(got.NotFound) != 0 {
				t.Fatalf("a dump %s kept statistics: %+v", name, got)
			}
		}
		if _, err := store.ReadDump(ctx, dumper(t, s), strings.NewReader(full)); err != nil {
			t.Errorf("the whole dump, after the refused ones: %v", err)
		}
	})
}
