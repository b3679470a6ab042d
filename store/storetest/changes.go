package storetest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// runChanges checks store.Historian: Changes reads the history of every
// key in sequence order, after a sequence number or from a time, the same
// however many it reads at a time.
func runChanges(t *testing.T, open func(t *testing.T) store.Store) {
	ctx := context.Background()
	historian := func(t *testing.T, s store.Store) store.Historian {
		t.Helper()
		h := s
		return h
	}
	read := func(t *testing.T, s store.Store, q store.ChangesQuery) []store.Change {
		t.Helper()
		var out []store.Change
		if err := historian(t, s).Changes(ctx, q, func(c *store.Change) error {
			out = append(out, *c)
			return nil
		}); err != nil {
			t.Fatalf("Changes(%+v): %v", q, err)
		}
		return out
	}
	seqs := func(cs []store.Change) string {
		var out []uint64
		for _, c := range cs {
			out = append(out, c.Seq)
		}
		return fmt.Sprint(out)
	}

	t.Run("Changes reads the history of every key in order, after a sequence or from a time", func(t *testing.T) {
		s := open(t)
		keys := []string{"ark:12345/h3", "ark:12345/h1", "urn:isbn:1", "ark:12345/h2"}
		for round := range 3 {
			for _, k := range keys {
				MustApply(t, s, store.Write{Binding: store.Binding{Key: k, Target: fmt.Sprintf("https://example.org/%d", round), Status: 302}, By: "k"})
				time.Sleep(2 * time.Millisecond) // times that differ, for Since to tell apart
			}
		}
		if _, err := s.Reserve(ctx, []store.Binding{{Key: "ark:12345/h9"}}, "minter"); err != nil {
			t.Fatal(err)
		}
		batch, err := store.NewBatch(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApplyBatch(ctx, batch, []store.Write{{Binding: store.Binding{Key: "ark:12345/h1", Target: "/moved", Status: 200}, By: "mover"}}); err != nil {
			t.Fatal(err)
		}
		// What Get says, put in sequence order.
		var want []store.Change
		for _, k := range append(keys, "ark:12345/h9") {
			_, hist, err := s.Get(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, hist...)
		}
		sort.Slice(want, func(i, j int) bool { return want[i].Seq < want[j].Seq })
		if len(want) != 14 || want[len(want)-1].Batch != batch {
			t.Fatalf("the fixture's history: %d records, the last %+v", len(want), want[len(want)-1])
		}
		for _, ahead := range []int{1, 3, 0} {
			all := read(t, s, store.ChangesQuery{Want: ahead})
			if seqs(all) != seqs(want) {
				t.Fatalf("Changes reading %d ahead: %s, want %s", ahead, seqs(all), seqs(want))
			}
			for i := range all {
				if all[i].Key != want[i].Key || all[i].By != want[i].By || all[i].Batch != want[i].Batch || !all[i].Time.Equal(want[i].Time) ||
					(all[i].Old == nil) != (want[i].Old == nil) || all[i].New.Target != want[i].New.Target {
					t.Errorf("record %d: %+v, Get has %+v", all[i].Seq, all[i], want[i])
				}
			}
			if got := read(t, s, store.ChangesQuery{After: want[4].Seq, Want: ahead}); seqs(got) != seqs(want[5:]) {
				t.Errorf("Changes after %d: %s, want %s", want[4].Seq, seqs(got), seqs(want[5:]))
			}
			if got := read(t, s, store.ChangesQuery{Since: want[7].Time, Want: ahead}); seqs(got) != seqs(want[7:]) {
				t.Errorf("Changes since %v: %s, want %s", want[7].Time, seqs(got), seqs(want[7:]))
			}
			if got := read(t, s, store.ChangesQuery{Since: want[7].Time.Add(-time.Microsecond), Want: ahead}); seqs(got) != seqs(want[7:]) {
				t.Errorf("Changes since just before record 7: %s, want %s", seqs(got), seqs(want[7:]))
			}
			if got := read(t, s, store.ChangesQuery{Since: want[0].Time.Add(-time.Hour), Want: ahead}); seqs(got) != seqs(want) {
				t.Errorf("Changes since an hour before all: %s", seqs(got))
			}
			if got := read(t, s, store.ChangesQuery{Since: time.Now().Add(time.Hour), Want: ahead}); len(got) != 0 {
				t.Errorf("Changes since an hour from now: %s", seqs(got))
			}
			if got := read(t, s, store.ChangesQuery{After: want[len(want)-1].Seq, Want: ahead}); len(got) != 0 {
				t.Errorf("Changes after the last: %s", seqs(got))
			}
		}
		stop := errors.New("stop")
		n := 0
		if err := historian(t, s).Changes(ctx, store.ChangesQuery{Want: 2}, func(*store.Change) error {
			if n++; n == 3 {
				return stop
			}
			return nil
		}); err != stop || n != 3 {
			t.Errorf("Changes stopped by fn at the third: %v after %d", err, n)
		}
	})
}
