package storetest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/store"
)

// runDump checks store.Dumper: a dump loaded into an empty store dumps
// the same bytes, survives a restart, and the store goes on from it; a
// store that holds anything, and a dump cut short or out of order, are
// refused and keep nothing.
func runDump(t *testing.T, open func(t *testing.T) store.Store, reopen func(t *testing.T, s store.Store) store.Store) {
	ctx := context.Background()
	dumper := func(t *testing.T, s store.Store) store.Dumper {
		t.Helper()
		d, ok := s.(store.Dumper)
		if !ok {
			t.Fatalf("%T does not implement store.Dumper", s)
		}
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
	// fill gives s one of everything a store holds.
	fill := func(t *testing.T, s store.Store) {
		t.Helper()
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
		for _, want := range []string{`"id":"ark:12345/d3"`, `"reason":"duplicate"`, `"by":"carol"`, `"counter":{"name":"ark:12345/x7","value":1099511627776}`, `"end":{"bindings":5,"changes":7,"counters":2}`} {
			if !strings.Contains(first, want) {
				t.Errorf("the dump lacks %s:\n%s", want, first)
			}
		}
		dst := open(t)
		counts, err := store.ReadDump(ctx, dumper(t, dst), strings.NewReader(first))
		if err != nil {
			t.Fatal(err)
		}
		if counts != (store.DumpCounts{Bindings: 5, Changes: 7, Counters: 2}) {
			t.Errorf("loaded %v", counts)
		}
		if again := dump(t, dst); again != first {
			t.Errorf("the loaded store dumps differently:\nfirst:\n%s\nagain:\n%s", first, again)
		}
		dst = reopen(t, dst)
		if again := dump(t, dst); again != first {
			t.Errorf("after a restart, the loaded store dumps differently:\n%s", again)
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
		swapped := append([]string(nil), lines...)
		swapped[1], swapped[2] = swapped[2], swapped[1]
		bad := map[string]string{
			"cut short":        strings.Join(lines[:len(lines)-1], ""),
			"cut mid-history":  strings.Join(lines[:8], ""),
			"out of order":     strings.Join(swapped, ""),
			"miscounted":       strings.Join(lines[:len(lines)-1], "") + `{"end":{"bindings":5,"changes":6,"counters":2}}` + "\n",
			"without a header": strings.Join(lines[1:], ""),
			"with more after":  full + full,
			"an unknown field": strings.Replace(full, `"by":"carol"`, `"by":"carol","extra":1`, 1),
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
		}
		if _, err := store.ReadDump(ctx, dumper(t, s), strings.NewReader(full)); err != nil {
			t.Errorf("the whole dump, after the refused ones: %v", err)
		}
	})
}
