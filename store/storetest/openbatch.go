package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/caddy-ark/caddy-ark/store"
)

// runOpenBatch checks store.Batcher's OpenBatch: a batch made in parts is
// kept whole once it commits, and leaves nothing, its history included,
// when it is aborted or the store is closed before it commits (as a
// process that is killed closes it).
func runOpenBatch(t *testing.T, open func(t *testing.T) store.Store, reopen func(t *testing.T, s store.Store) store.Store) {
	ctx := context.Background()
	const n, part = 30, 10
	target := func(round, i int) string { return fmt.Sprintf("https://example.org/%d/%d", round, i) }
	// write makes a batch that moves every binding to round's targets,
	// from version, a part at a time, and returns it uncommitted.
	write := func(t *testing.T, s store.Store, round int, version uint64) (uint64, store.BatchWriter) {
		t.Helper()
		batch, err := store.NewBatch(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.(store.Batcher).OpenBatch(ctx, batch)
		if err != nil {
			t.Fatal(err)
		}
		for from := 0; from < n; from += part {
			var ws []store.Write
			for i := from; i < from+part; i++ {
				ws = append(ws, store.Write{Binding: store.Binding{Key: Key(i), Target: target(round, i), Status: 302}, IfVersion: version, By: "mover"})
			}
			got, err := w.Apply(ctx, ws)
			if err != nil {
				t.Fatal(err)
			}
			for j, b := range got {
				if b == nil || b.Version != version+1 {
					t.Fatalf("part from %d: write %d made %+v", from, j, b)
				}
			}
		}
		cur, err := w.Get(ctx, Key(0))
		if err != nil || cur == nil || cur.Target != target(round, 0) {
			t.Fatalf("Get in the batch: %+v, %v; want its own write", cur, err)
		}
		return batch, w
	}
	// expect checks that every binding is round's at version, with
	// version history records, none of them of batch gone (0 for none).
	expect := func(t *testing.T, s store.Store, round int, version uint64, gone uint64) {
		t.Helper()
		for i := range n {
			b, hist, err := s.Get(ctx, Key(i))
			if err != nil {
				t.Fatal(err)
			}
			if b.Target != target(round, i) || b.Version != version || uint64(len(hist)) != version {
				t.Fatalf("%s: %+v with %d records; want %s at version %d", Key(i), b, len(hist), target(round, i), version)
			}
			if last := hist[len(hist)-1]; last.New.Version != version || gone != 0 && last.Batch == gone {
				t.Fatalf("%s: last record %+v", Key(i), last)
			}
		}
		if gone == 0 {
			return
		}
		n := 0
		if err := s.(store.Batcher).BatchChanges(ctx, gone, func(*store.Change) error { n++; return nil }); err != nil || n != 0 {
			t.Errorf("BatchChanges of batch %d, not kept: %d records, %v", gone, n, err)
		}
		if err := s.(store.Historian).Changes(ctx, store.ChangesQuery{}, func(c *store.Change) error {
			if c.Batch == gone {
				t.Errorf("Changes holds %+v, of batch %d, not kept", c, gone)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("OpenBatch keeps a batch whole once it commits, and nothing of one aborted or cut short", func(t *testing.T) {
		s := open(t)
		for i := range n {
			MustApply(t, s, store.Write{Binding: store.Binding{Key: Key(i), Target: target(0, i), Status: 302}, By: "k"})
		}
		kept, w := write(t, s, 1, 1)
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		expect(t, s, 1, 2, 0)
		count := 0
		if err := s.(store.Batcher).BatchChanges(ctx, kept, func(*store.Change) error { count++; return nil }); err != nil || count != n {
			t.Fatalf("BatchChanges of the batch committed: %d, %v; want %d", count, err, n)
		}

		aborted, w := write(t, s, 2, 2)
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
		expect(t, s, 1, 2, aborted)

		cut, _ := write(t, s, 3, 2)
		s = reopen(t, s)
		expect(t, s, 1, 2, cut)

		// The store goes on: a batch after them is kept.
		_, w = write(t, s, 4, 2)
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		expect(t, s, 4, 3, cut)
	})
}
