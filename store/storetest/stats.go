package storetest

import (
	"bytes"
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/store"
)

// runStats checks store.StatsStore: counts add up, also from writers at
// once; reads keep to their days and order; each day's lists keep their
// most counted names; old days are dropped; counts survive a restart and
// are in a dump. A backend without statistics skips it.
func runStats(t *testing.T, open func(t *testing.T) store.Store, reopen func(t *testing.T, s store.Store) store.Store) {
	ctx := context.Background()
	statsOf := func(t *testing.T, s store.Store) store.StatsStore {
		t.Helper()
		ss := s
		return ss
	}
	keep := store.StatsKeep{Top: 10, NotFound: 10}
	add := func(t *testing.T, ss store.StatsStore, s *store.Stats, keep store.StatsKeep) {
		t.Helper()
		if err := ss.AddStats(ctx, s, keep); err != nil {
			t.Fatal(err)
		}
	}
	read := func(t *testing.T, ss store.StatsStore, from, to string) *store.Stats {
		t.Helper()
		got, err := ss.ReadStats(ctx, from, to)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	res := func(day, shoulder, outcome string, n uint64) store.ResolutionCount {
		return store.ResolutionCount{Day: day, Shoulder: shoulder, Outcome: outcome, Count: n}
	}
	name := func(day, id string, n uint64) store.NameCount { return store.NameCount{Day: day, ID: id, Count: n} }
	same := func(t *testing.T, what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
		}
	}

	t.Run("Stats: an empty store reads nothing and drops nothing", func(t *testing.T) {
		ss := statsOf(t, open(t))
		got := read(t, ss, "2000-01-01", "2100-12-31")
		if len(got.Resolutions)+len(got.Top)+len(got.NotFound) != 0 {
			t.Errorf("ReadStats of a new store: %+v", got)
		}
		if err := ss.DropStats(ctx, "2100-01-01"); err != nil {
			t.Errorf("DropStats of a new store: %v", err)
		}
	})

	t.Run("Stats: counts add up and are read by day, in order", func(t *testing.T) {
		ss := statsOf(t, open(t))
		add(t, ss, &store.Stats{
			Resolutions: []store.ResolutionCount{res("2025-03-02", "ark:12345/x5", "redirect", 3), res("2025-03-01", "ark:12345/x5", "not_found", 1), res("2025-03-01", "", "invalid", 2)},
			Top:         []store.NameCount{name("2025-03-01", "ark:12345/x5a", 4)},
			NotFound:    []store.NameCount{name("2025-03-01", "ark:12345/x5zz", 1)},
		}, keep)
		add(t, ss, &store.Stats{
			Resolutions: []store.ResolutionCount{res("2025-03-02", "ark:12345/x5", "redirect", 5), res("2025-03-03", "urn:isbn", "redirect", 1),
				res("2025-03-02", "ark:12345/x5", "redirect", 1)}, // the same row twice in one call
			Top:      []store.NameCount{name("2025-03-01", "ark:12345/x5a", 1), name("2025-03-01", "ark:12345/x5b", 7), name("2025-03-02", "ark:12345/x5a", 2)},
			NotFound: []store.NameCount{name("2025-03-01", "ark:12345/x5a", 6)}, // a list of its own
		}, keep)
		got := read(t, ss, "2025-03-01", "2025-03-02")
		same(t, "Resolutions", got.Resolutions, []store.ResolutionCount{
			res("2025-03-01", "", "invalid", 2), res("2025-03-01", "ark:12345/x5", "not_found", 1), res("2025-03-02", "ark:12345/x5", "redirect", 9)})
		same(t, "Top", got.Top, []store.NameCount{
			name("2025-03-01", "ark:12345/x5b", 7), name("2025-03-01", "ark:12345/x5a", 5), name("2025-03-02", "ark:12345/x5a", 2)})
		same(t, "NotFound", got.NotFound, []store.NameCount{name("2025-03-01", "ark:12345/x5a", 6), name("2025-03-01", "ark:12345/x5zz", 1)})
		only := read(t, ss, "2025-03-03", "2025-03-03")
		same(t, "one day", only.Resolutions, []store.ResolutionCount{res("2025-03-03", "urn:isbn", "redirect", 1)})
		if len(only.Top)+len(only.NotFound) != 0 {
			t.Errorf("names of another day: %+v", only)
		}
	})

	t.Run("Stats: each day keeps its most counted names", func(t *testing.T) {
		ss := statsOf(t, open(t))
		add(t, ss, &store.Stats{
			Top:      []store.NameCount{name("2025-04-01", "ark:12345/a", 5), name("2025-04-01", "ark:12345/b", 1), name("2025-04-01", "ark:12345/c", 3), name("2025-04-02", "ark:12345/d", 1)},
			NotFound: []store.NameCount{name("2025-04-01", "ark:12345/n1", 1), name("2025-04-01", "ark:12345/n2", 1), name("2025-04-01", "ark:12345/n3", 2)},
		}, store.StatsKeep{Top: 2, NotFound: 2})
		got := read(t, ss, "2025-04-01", "2025-04-02")
		same(t, "Top", got.Top, []store.NameCount{name("2025-04-01", "ark:12345/a", 5), name("2025-04-01", "ark:12345/c", 3), name("2025-04-02", "ark:12345/d", 1)})
		same(t, "NotFound (a tie goes to the smaller name)", got.NotFound, []store.NameCount{name("2025-04-01", "ark:12345/n3", 2), name("2025-04-01", "ark:12345/n1", 1)})
		// A name that was dropped comes back with its new count only; a
		// day that a call does not touch is not trimmed by it.
		add(t, ss, &store.Stats{Top: []store.NameCount{name("2025-04-01", "ark:12345/b", 4)}}, store.StatsKeep{Top: 2, NotFound: 0})
		got = read(t, ss, "2025-04-01", "2025-04-02")
		same(t, "Top after b came back", got.Top, []store.NameCount{name("2025-04-01", "ark:12345/a", 5), name("2025-04-01", "ark:12345/b", 4), name("2025-04-02", "ark:12345/d", 1)})
		if len(got.NotFound) != 2 {
			t.Errorf("NotFound was trimmed by a call that added none: %+v", got.NotFound)
		}
	})

	t.Run("Stats: DropStats drops the days before, and only those", func(t *testing.T) {
		ss := statsOf(t, open(t))
		for _, day := range []string{"2024-12-31", "2025-01-01", "2025-01-02"} {
			add(t, ss, &store.Stats{
				Resolutions: []store.ResolutionCount{res(day, "ark:12345", "redirect", 1)},
				Top:         []store.NameCount{name(day, "ark:12345/a", 1)},
				NotFound:    []store.NameCount{name(day, "ark:12345/b", 1)},
			}, keep)
		}
		if err := ss.DropStats(ctx, "2025-01-02"); err != nil {
			t.Fatal(err)
		}
		got := read(t, ss, "2000-01-01", "2100-01-01")
		same(t, "Resolutions", got.Resolutions, []store.ResolutionCount{res("2025-01-02", "ark:12345", "redirect", 1)})
		same(t, "Top", got.Top, []store.NameCount{name("2025-01-02", "ark:12345/a", 1)})
		same(t, "NotFound", got.NotFound, []store.NameCount{name("2025-01-02", "ark:12345/b", 1)})
	})

	t.Run("Stats: writers at once add up", func(t *testing.T) {
		ss := statsOf(t, open(t))
		const writers, adds = 8, 10
		var wg sync.WaitGroup
		errs := make(chan error, writers*adds)
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range adds {
					errs <- ss.AddStats(ctx, &store.Stats{
						Resolutions: []store.ResolutionCount{res("2025-05-01", "ark:12345/x5", "redirect", 1), res("2025-05-01", "ark:12345/b2", "redirect", 2)},
						Top:         []store.NameCount{name("2025-05-01", "ark:12345/x5a", 1)},
					}, keep)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got := read(t, ss, "2025-05-01", "2025-05-01")
		same(t, "Resolutions", got.Resolutions, []store.ResolutionCount{
			res("2025-05-01", "ark:12345/b2", "redirect", 2*writers*adds), res("2025-05-01", "ark:12345/x5", "redirect", writers*adds)})
		same(t, "Top", got.Top, []store.NameCount{name("2025-05-01", "ark:12345/x5a", writers*adds)})
	})

	t.Run("Stats: counts survive a restart and are in a dump", func(t *testing.T) {
		s := open(t)
		add(t, statsOf(t, s), &store.Stats{
			Resolutions: []store.ResolutionCount{res("2025-06-01", "ark:12345/x5", "gone", 2)},
			NotFound:    []store.NameCount{name("2025-06-01", "ark:12345/x5q", 3)},
		}, keep)
		s = reopen(t, s)
		got := read(t, statsOf(t, s), "2025-06-01", "2025-06-01")
		same(t, "Resolutions", got.Resolutions, []store.ResolutionCount{res("2025-06-01", "ark:12345/x5", "gone", 2)})
		same(t, "NotFound", got.NotFound, []store.NameCount{name("2025-06-01", "ark:12345/x5q", 3)})
		d := s
		var buf bytes.Buffer
		n, err := store.WriteDump(ctx, d, &buf)
		if err != nil {
			t.Fatal(err)
		}
		if n != (store.DumpCounts{Stats: 2}) {
			t.Errorf("a store holding only statistics dumped %+v: %s", n, buf.String())
		}
	})
}
