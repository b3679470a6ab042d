package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/store"
)

// Run checks that a Store backend keeps the contract of every
// Store method, of store.Dumper, store.TargetChecks, store.Lister, store.Batcher,
// store.Historian and store.KeyStore,
// which every backend implements, and of store.StatsStore, which a backend may
// implement. open returns a new, empty store that lives until t ends;
// reopen releases s and returns a store over the same data, as a restarted
// node would see it. Every backend's tests call it.
func Run(t *testing.T, open func(t *testing.T) store.Store, reopen func(t *testing.T, s store.Store) store.Store) {
	ctx := context.Background()
	bind := func(key, target string) store.Binding {
		return store.Binding{Key: key, Target: target, Status: 302}
	}

	t.Run("Lookup answers in order, nil where a key has none", func(t *testing.T) {
		s := open(t)
		MustApply(t, s, store.Write{Binding: bind("ark:12345/a", "https://example.org/a"), By: "k"})
		MustApply(t, s, store.Write{Binding: store.Binding{Key: "ark:12345/c", Target: "/c", Status: 200, Passthrough: true}, By: "k"})
		got, err := s.Lookup(ctx, []string{"ark:12345/c", "ark:12345/b", "ark:12345/a"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0] == nil || got[1] != nil || got[2] == nil {
			t.Fatalf("Lookup(c, b, a) = %v, want c, nil, a", got)
		}
		if got[0].Key != "ark:12345/c" || got[0].Target != "/c" || got[0].Status != 200 || !got[0].Passthrough {
			t.Errorf("c = %+v", got[0])
		}
		if got[2].Key != "ark:12345/a" || got[2].Target != "https://example.org/a" || got[2].Passthrough {
			t.Errorf("a = %+v", got[2])
		}
		if got, err := s.Lookup(ctx, nil); err != nil || len(got) != 0 {
			t.Errorf("Lookup(nil) = %v, %v; want nothing", got, err)
		}
	})

	t.Run("Apply creates with version 1, then counts versions", func(t *testing.T) {
		s := open(t)
		b := bind("ark:12345/v", "https://example.org/1")
		b.Meta = map[string]string{"who": "Ada", "what": "a letter"}
		first := MustApply(t, s, store.Write{Binding: b, By: "alice"})
		if first.Version != 1 || first.By != "alice" || first.Updated.IsZero() {
			t.Fatalf("new binding: version %d by %q at %v; want 1, alice, a time", first.Version, first.By, first.Updated)
		}
		b.Target = "https://example.org/2"
		second := MustApply(t, s, store.Write{Binding: b, IfVersion: 1, By: "bob"})
		if second.Version != 2 || second.By != "bob" || second.Target != "https://example.org/2" {
			t.Fatalf("update: %+v", second)
		}
		got, _, err := s.Get(ctx, b.Key)
		if err != nil {
			t.Fatal(err)
		}
		sameBinding(t, got, second)
	})

	t.Run("Apply refuses a failed precondition and changes nothing", func(t *testing.T) {
		s := open(t)
		key := "ark:12345/p"
		if _, err := s.Apply(ctx, store.Write{Binding: bind(key, "/x"), IfVersion: 1, By: "k"}); !errors.Is(err, store.ErrPrecondition) {
			t.Errorf("IfVersion on an unbound key: %v, want ErrPrecondition", err)
		}
		if _, _, err := s.Get(ctx, key); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("after a refused write, Get: %v, want ErrNotFound", err)
		}
		v1 := MustApply(t, s, store.Write{Binding: bind(key, "https://example.org/1"), Create: true, By: "k"})
		if _, err := s.Apply(ctx, store.Write{Binding: bind(key, "https://example.org/2"), Create: true, By: "k"}); !errors.Is(err, store.ErrPrecondition) {
			t.Errorf("Create on a bound key: %v, want ErrPrecondition", err)
		}
		if _, err := s.Apply(ctx, store.Write{Binding: bind(key, "https://example.org/3"), IfVersion: 2, By: "k"}); !errors.Is(err, store.ErrPrecondition) {
			t.Errorf("IfVersion 2 on version 1: %v, want ErrPrecondition", err)
		}
		got, hist, err := s.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		sameBinding(t, got, v1)
		if len(hist) != 1 {
			t.Errorf("history has %d records after one change and two refusals", len(hist))
		}
	})

	t.Run("a withdrawn identifier never changes again", func(t *testing.T) {
		s := open(t)
		key := "ark:12345/w"
		MustApply(t, s, store.Write{Binding: bind(key, "https://example.org/w"), By: "k"})
		gone := MustApply(t, s, store.Write{Binding: store.Binding{Key: key, Status: 410, Reason: "duplicate of ark:12345/v"}, By: "k"})
		if gone.Status != 410 || gone.Reason != "duplicate of ark:12345/v" || gone.Version != 2 {
			t.Fatalf("withdrawn: %+v", gone)
		}
		for _, w := range []store.Write{
			{Binding: bind(key, "https://example.org/again"), By: "k"},
			{Binding: bind(key, "https://example.org/again"), IfVersion: 2, By: "k"},
			{Binding: store.Binding{Key: key, Status: 410, Reason: "another reason"}, By: "k"},
		} {
			if _, err := s.Apply(ctx, w); !errors.Is(err, store.ErrWithdrawn) {
				t.Errorf("Apply(%+v) on a withdrawn key: %v, want ErrWithdrawn", w, err)
			}
		}
		if ok, err := s.Reserve(ctx, []store.Binding{{Key: key}}, "k"); err != nil || ok[0] {
			t.Errorf("Reserve of a withdrawn key = %v, %v; want false", ok, err)
		}
		got, err := s.Lookup(ctx, []string{key})
		if err != nil {
			t.Fatal(err)
		}
		sameBinding(t, got[0], gone)
	})

	t.Run("Get: ErrNotFound, then the history oldest first", func(t *testing.T) {
		s := open(t)
		key := "ark:12345/h"
		if _, _, err := s.Get(ctx, key); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("Get of an unknown key: %v, want ErrNotFound", err)
		}
		MustApply(t, s, store.Write{Binding: bind("ark:12345/other", "/o"), By: "k"})
		v1 := MustApply(t, s, store.Write{Binding: bind(key, "https://example.org/1"), By: "alice"})
		v2 := MustApply(t, s, store.Write{Binding: bind(key, "https://example.org/2"), By: "bob"})
		v3 := MustApply(t, s, store.Write{Binding: store.Binding{Key: key, Status: 410, Reason: "lost"}, By: "carol"})
		_, hist, err := s.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 3 {
			t.Fatalf("history: %d records, want 3", len(hist))
		}
		want := []struct {
			by       string
			old, new *store.Binding
		}{{"alice", nil, v1}, {"bob", v1, v2}, {"carol", v2, v3}}
		for i, c := range hist {
			if c.Key != key || c.By != want[i].by || c.Time.IsZero() {
				t.Errorf("history[%d]: key %q by %q at %v", i, c.Key, c.By, c.Time)
			}
			if i > 0 && c.Seq <= hist[i-1].Seq {
				t.Errorf("history[%d].Seq %d after %d: must increase", i, c.Seq, hist[i-1].Seq)
			}
			if want[i].old == nil {
				if c.Old != nil {
					t.Errorf("history[%d].Old = %+v, want nil for a new binding", i, c.Old)
				}
			} else {
				sameBinding(t, c.Old, want[i].old)
			}
			sameBinding(t, c.New, want[i].new)
		}
	})

	t.Run("Reserve stores only keys that have nothing, durably", func(t *testing.T) {
		s := open(t)
		MustApply(t, s, store.Write{Binding: bind("ark:12345/taken", "https://example.org/t"), By: "k"})
		ok, err := s.Reserve(ctx, []store.Binding{
			{Key: "ark:12345/new1"},
			{Key: "ark:12345/taken", Target: "https://example.org/mine", Status: 302},
			{Key: "ark:12345/new2", Target: "https://example.org/new2", Status: 303},
		}, "minter")
		if err != nil {
			t.Fatal(err)
		}
		if len(ok) != 3 || !ok[0] || ok[1] || !ok[2] {
			t.Fatalf("Reserve = %v, want [true false true]", ok)
		}
		if again, err := s.Reserve(ctx, []store.Binding{{Key: "ark:12345/new1"}}, "minter"); err != nil || again[0] {
			t.Errorf("Reserve of a reserved key = %v, %v; want false", again, err)
		}
		s = reopen(t, s)
		got, err := s.Lookup(ctx, []string{"ark:12345/new1", "ark:12345/taken", "ark:12345/new2"})
		if err != nil {
			t.Fatal(err)
		}
		if got[0] == nil || got[0].Status != 0 || got[0].Target != "" || got[0].Version != 1 || got[0].By != "minter" {
			t.Errorf("reserved name after reopening: %+v", got[0])
		}
		if got[1] == nil || got[1].Target != "https://example.org/t" || got[1].Version != 1 {
			t.Errorf("a taken key was changed by Reserve: %+v", got[1])
		}
		if got[2] == nil || got[2].Target != "https://example.org/new2" || got[2].Status != 303 {
			t.Errorf("reserved binding after reopening: %+v", got[2])
		}
		_, hist, err := s.Get(ctx, "ark:12345/new2")
		if err != nil || len(hist) != 1 || hist[0].By != "minter" || hist[0].Old != nil {
			t.Errorf("history of a reserved binding: %+v, %v", hist, err)
		}
		// A reserved name is bound like any other.
		b := MustApply(t, s, store.Write{Binding: bind("ark:12345/new1", "https://example.org/n"), IfVersion: 1, By: "k"})
		if b.Version != 2 {
			t.Errorf("binding a reserved name: version %d, want 2", b.Version)
		}
	})

	t.Run("Reserve under concurrency gives each key to one caller", func(t *testing.T) {
		s := open(t)
		const callers, keys = 8, 50
		won := make([][]bool, callers)
		var wg sync.WaitGroup
		for c := range callers {
			wg.Go(func() {
				bs := make([]store.Binding, keys)
				for i := range bs {
					bs[i] = store.Binding{Key: fmt.Sprintf("ark:12345/r%d", i)}
				}
				ok, err := s.Reserve(ctx, bs, fmt.Sprint("caller", c))
				if err != nil {
					t.Error(err)
				}
				won[c] = ok
			})
		}
		wg.Wait()
		for i := range keys {
			n := 0
			for c := range callers {
				if len(won[c]) == keys && won[c][i] {
					n++
				}
			}
			if n != 1 {
				t.Errorf("key %d reserved by %d callers, want 1", i, n)
			}
		}
	})

	t.Run("Count hands out ranges that never overlap, durably", func(t *testing.T) {
		s := open(t)
		if v, err := s.Count(ctx, "seq", 0); err != nil || v != 0 {
			t.Fatalf("a new counter = %d, %v; want 0", v, err)
		}
		const callers, calls, n = 8, 20, 3
		var mu sync.Mutex
		var starts []uint64
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				for range calls {
					v, err := s.Count(ctx, "seq", n)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					starts = append(starts, v)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
		for i, v := range starts {
			if v != uint64(i*n) {
				t.Fatalf("range %d starts at %d, want %d: ranges overlap or leave gaps", i, v, i*n)
			}
		}
		if v, _ := s.Count(ctx, "other", 5); v != 0 {
			t.Errorf("counters are not separate: a new one starts at %d", v)
		}
		s = reopen(t, s)
		if v, err := s.Count(ctx, "seq", 1); err != nil || v != callers*calls*n {
			t.Errorf("after reopening, seq = %d, %v; want %d", v, err, callers*calls*n)
		}
	})

	t.Run("Each walks every binding in key order until an error", func(t *testing.T) {
		s := open(t)
		keys := []string{"ark:12345/m", "ark:12345/b", "urn:isbn:1", "ark:12345/z", "ark:12345/b/c"}
		for _, k := range keys {
			MustApply(t, s, store.Write{Binding: bind(k, "/"+k), By: "k"})
		}
		if _, err := s.Reserve(ctx, []store.Binding{{Key: "ark:12345/reserved"}}, "k"); err != nil {
			t.Fatal(err)
		}
		var seen []string
		if err := s.Each(ctx, func(b *store.Binding) error { seen = append(seen, b.Key); return nil }); err != nil {
			t.Fatal(err)
		}
		want := append(keys[:len(keys):len(keys)], "ark:12345/reserved")
		sort.Strings(want)
		if fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Errorf("Each: %v, want %v", seen, want)
		}
		stop := errors.New("stop")
		n := 0
		err := s.Each(ctx, func(*store.Binding) error { n++; return stop })
		if err != stop || n != 1 {
			t.Errorf("Each stopped by fn: %v after %d calls, want stop after 1", err, n)
		}
	})

	t.Run("Each walks a store of several batches once, in key order", func(t *testing.T) {
		s := open(t)
		n := 2*store.EachBatchCount + 7
		if _, err := s.Import(ctx, Bindings(n), "k"); err != nil {
			t.Fatal(err)
		}
		var seen []string
		if err := s.Each(ctx, func(b *store.Binding) error { seen = append(seen, b.Key); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(seen) != n || !sort.StringsAreSorted(seen) || len(slices.Compact(slices.Clone(seen))) != n {
			t.Errorf("Each over %d bindings: %d calls, sorted %v, distinct %d", n, len(seen), sort.StringsAreSorted(seen), len(slices.Compact(slices.Clone(seen))))
		}
	})

	t.Run("Import adds a batch, skipping what is bound the same way", func(t *testing.T) {
		s := open(t)
		existing := MustApply(t, s, store.Write{Binding: bind("ark:12345/i1", "https://example.org/1"), By: "k"})
		batch := []*store.Binding{
			{Key: "ark:12345/i1", Target: "https://example.org/1", Status: 302},
			{Key: "ark:12345/i2", Target: "/two", Status: 200, Meta: map[string]string{"what": "two"}},
			{Key: "ark:12345/i2", Target: "/two", Status: 200, Meta: map[string]string{"what": "two"}},
			{Key: "ark:12345/i3", Status: 410, Reason: "gone"},
		}
		n, err := s.Import(ctx, Feed(batch, nil), "importer")
		if err != nil || n != 2 {
			t.Fatalf("Import = %d, %v; want 2 added", n, err)
		}
		got, err := s.Lookup(ctx, []string{"ark:12345/i1", "ark:12345/i2", "ark:12345/i3"})
		if err != nil {
			t.Fatal(err)
		}
		sameBinding(t, got[0], existing)
		if got[1] == nil || got[1].Target != "/two" || got[1].Meta["what"] != "two" || got[1].By != "importer" || got[1].Version != 1 {
			t.Errorf("imported: %+v", got[1])
		}
		if got[2] == nil || got[2].Status != 410 || got[2].Reason != "gone" {
			t.Errorf("imported tombstone: %+v", got[2])
		}
		_, hist, err := s.Get(ctx, "ark:12345/i2")
		if err != nil || len(hist) != 1 || hist[0].By != "importer" {
			t.Errorf("history of an imported binding: %+v, %v", hist, err)
		}
	})

	t.Run("Import keeps nothing of a batch with a conflict", func(t *testing.T) {
		s := open(t)
		MustApply(t, s, store.Write{Binding: bind("ark:12345/c1", "https://example.org/1"), By: "k"})
		for name, batch := range map[string][]*store.Binding{
			"with the store": {
				{Key: "ark:12345/fresh", Target: "/f", Status: 200},
				{Key: "ark:12345/c1", Target: "https://example.org/other", Status: 302},
			},
			"within the batch": {
				{Key: "ark:12345/fresh", Target: "/f", Status: 200},
				{Key: "ark:12345/fresh", Target: "/g", Status: 200},
			},
		} {
			_, err := s.Import(ctx, Feed(batch, nil), "importer")
			var ie *store.ImportError
			if !errors.As(err, &ie) || ie.Index != 1 || !errors.Is(err, store.ErrConflict) {
				t.Errorf("conflict %s: %v, want an *ImportError at 1 wrapping ErrConflict", name, err)
			} else if ie.Key != batch[1].Key {
				t.Errorf("conflict %s: the error names %q, want %q", name, ie.Key, batch[1].Key)
			}
		}
		bad := errors.New("the input broke")
		if _, err := s.Import(ctx, Feed([]*store.Binding{{Key: "ark:12345/fresh", Target: "/f", Status: 200}}, bad), "importer"); !errors.Is(err, bad) {
			t.Errorf("an input error: %v, want it returned", err)
		}
		if got, _ := s.Lookup(ctx, []string{"ark:12345/fresh"}); got[0] != nil {
			t.Errorf("a refused import kept %+v", got[0])
		}
		n := 0
		_ = s.Each(ctx, func(*store.Binding) error { n++; return nil })
		if n != 1 {
			t.Errorf("after refused imports the store holds %d bindings, want 1", n)
		}
	})

	t.Run("Import stops when its context is done, keeping nothing", func(t *testing.T) {
		s := open(t)
		ictx, cancel := context.WithCancel(ctx)
		defer cancel()
		feed, n := Shuffled(3000, 7), 0
		_, err := s.Import(ictx, func() (*store.Binding, error) {
			if n++; n == 2000 {
				cancel() // as a client that goes away mid-body
			}
			return feed()
		}, "importer")
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a cancelled import: %v, want context.Canceled", err)
		}
		kept := 0
		_ = s.Each(ctx, func(*store.Binding) error { kept++; return nil })
		if kept != 0 {
			t.Errorf("a cancelled import kept %d bindings", kept)
		}
		MustApply(t, s, store.Write{Binding: bind(Key(0), "/after"), Create: true, By: "k"})
	})

	t.Run("SizeHint says about how many bindings a large import left", func(t *testing.T) {
		s := open(t)
		const n = 20000
		if added, err := s.Import(ctx, Bindings(n), "importer"); err != nil || added != n {
			t.Fatalf("Import = %d, %v; want %d", added, err, n)
		}
		if got, ok := s.SizeHint(ctx); !ok || got < n*95/100 || got > n*105/100 {
			t.Errorf("SizeHint after importing %d = %d, %v; want about %d", n, got, ok, n)
		}
	})

	t.Run("Import in random order reads back whole, and its bindings change as others do", func(t *testing.T) {
		s := open(t)
		const n = 3*store.EachBatchCount + 11
		next := Shuffled(n, 3)
		repeat := &store.Binding{Key: Key(5), Target: "https://repo.example.org/" + Key(5)[len("ark:12345/"):], Status: 302}
		i := 0
		added, err := s.Import(ctx, func() (*store.Binding, error) {
			if i++; i == n/2 {
				return repeat, nil // a repeat, bound the same way: skipped
			}
			return next()
		}, "importer")
		if err != nil || added != n {
			t.Fatalf("Import = %d, %v; want %d", added, err, n)
		}
		var seen []string
		if err := s.Each(ctx, func(b *store.Binding) error { seen = append(seen, b.Key); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(seen) != n || !sort.StringsAreSorted(seen) {
			t.Errorf("Each after the import: %d bindings (sorted %v), want %d", len(seen), sort.StringsAreSorted(seen), n)
		}
		b := MustApply(t, s, store.Write{Binding: bind(Key(7), "/changed"), IfVersion: 1, By: "k"})
		_, hist, err := s.Get(ctx, Key(7))
		if err != nil || b.Version != 2 || len(hist) != 2 || hist[0].By != "importer" || hist[1].Old == nil {
			t.Errorf("an imported binding changed: version %d, history %+v, %v", b.Version, hist, err)
		}
		if stored, err := s.Reserve(ctx, []store.Binding{{Key: Key(9)}}, "k"); err != nil || stored[0] {
			t.Errorf("Reserve of an imported key: %v, %v; want it taken", stored, err)
		}
	})

	t.Run("Watch hears of its own writes before they return", func(t *testing.T) {
		s := open(t)
		var mu sync.Mutex
		var heard []string
		wctx, stop := context.WithCancel(ctx)
		s.Watch(wctx, func(keys []string) {
			mu.Lock()
			defer mu.Unlock()
			if keys == nil {
				heard = append(heard, "<all>")
			}
			heard = append(heard, keys...)
		})
		heardOf := func(key string) bool {
			mu.Lock()
			defer mu.Unlock()
			for _, k := range heard {
				if k == key || k == "<all>" {
					return true
				}
			}
			return false
		}
		MustApply(t, s, store.Write{Binding: bind("ark:12345/w1", "/1"), By: "k"})
		if !heardOf("ark:12345/w1") {
			t.Error("Apply returned before Watch heard of it")
		}
		if _, err := s.Reserve(ctx, []store.Binding{{Key: "ark:12345/w2"}}, "k"); err != nil {
			t.Fatal(err)
		}
		if !heardOf("ark:12345/w2") {
			t.Error("Reserve returned before Watch heard of it")
		}
		if _, err := s.Import(ctx, Feed([]*store.Binding{{Key: "ark:12345/w3", Target: "/3", Status: 200}}, nil), "k"); err != nil {
			t.Fatal(err)
		}
		if !heardOf("ark:12345/w3") {
			t.Error("Import returned before Watch heard of it")
		}
		stop()
		mu.Lock()
		heard = nil
		mu.Unlock()
		MustApply(t, s, store.Write{Binding: bind("ark:12345/w4", "/4"), By: "k"})
		if heardOf("ark:12345/w4") {
			t.Error("Watch still called after its context was done")
		}
	})

	runDump(t, open, reopen)
	runStats(t, open, reopen)
	runTargets(t, open, reopen)
	RunList(t, open, reopen)
	runBatch(t, open, reopen)
	runOpenBatch(t, open, reopen)
	runChanges(t, open)
	runKeys(t, open, reopen)
}

// MustApply applies w and returns the binding as stored.
func MustApply(t *testing.T, s store.Store, w store.Write) *store.Binding {
	t.Helper()
	b, err := s.Apply(context.Background(), w)
	if err != nil {
		t.Fatalf("Apply(%+v): %v", w, err)
	}
	return b
}

// sameBinding fails t unless got and want hold the same binding.
func sameBinding(t *testing.T, got, want *store.Binding) {
	t.Helper()
	if got == nil || want == nil {
		if got != want {
			t.Errorf("binding %+v, want %+v", got, want)
		}
		return
	}
	if got.Key != want.Key || got.Target != want.Target || got.Status != want.Status ||
		got.Passthrough != want.Passthrough || got.Reason != want.Reason || got.Version != want.Version ||
		got.By != want.By || !got.Updated.Equal(want.Updated) || !maps.Equal(got.Meta, want.Meta) {
		t.Errorf("binding %+v, want %+v", got, want)
	}
}

// Feed returns a next function for Import that yields bs, then end
// (io.EOF when end is nil).
func Feed(bs []*store.Binding, end error) func() (*store.Binding, error) {
	if end == nil {
		end = io.EOF
	}
	return func() (*store.Binding, error) {
		if len(bs) == 0 {
			return nil, end
		}
		b := bs[0]
		bs = bs[1:]
		return b, nil
	}
}

// keyDigits are the digits of the names Key makes: Noid's betanumeric
// alphabet, as minters use it.
const keyDigits = "0123456789bcdfghjkmnpqrstvwxz"

// Key is the i-th of a sequence of distinct ARKs shaped like minted
// ones, made without remembering the others.
func Key(i int) string {
	blade := []byte("00000000")
	for p := len(blade) - 1; p >= 0 && i > 0; p-- {
		blade[p] = keyDigits[i%len(keyDigits)]
		i /= len(keyDigits)
	}
	return "ark:12345/x5" + string(blade)
}

// Bindings feeds Import n redirect bindings.
func Bindings(n int) func() (*store.Binding, error) {
	i := 0
	return func() (*store.Binding, error) {
		if i == n {
			return nil, io.EOF
		}
		k := Key(i)
		i++
		return &store.Binding{Key: k, Target: "https://repo.example.org/" + k[len("ark:12345/"):], Status: 302}, nil
	}
}

// Shuffled feeds Import the n redirect bindings of Bindings in a random
// order, the same for the same seed.
func Shuffled(n int, seed uint64) func() (*store.Binding, error) {
	perm := rand.New(rand.NewPCG(seed, seed)).Perm(n)
	i := 0
	return func() (*store.Binding, error) {
		if i == n {
			return nil, io.EOF
		}
		k := Key(perm[i])
		i++
		return &store.Binding{Key: k, Target: "https://repo.example.org/" + k[len("ark:12345/"):], Status: 302}, nil
	}
}
