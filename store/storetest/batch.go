package storetest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/store"
)

// runBatch checks store.Batcher: a batch's writes are made whole, each
// under its precondition, recorded with the batch's number in the history,
// listed back in order, heard of by Watch, and kept by a dump and a
// restart.
func runBatch(t *testing.T, open func(t *testing.T) store.Store, reopen func(t *testing.T, s store.Store) store.Store) {
	ctx := context.Background()
	batcher := func(t *testing.T, s store.Store) store.Batcher {
		t.Helper()
		b := s
		return b
	}
	changesOf := func(t *testing.T, s store.Store, batch uint64) []store.Change {
		t.Helper()
		var out []store.Change
		if err := batcher(t, s).BatchChanges(ctx, batch, func(c *store.Change) error {
			out = append(out, *c)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	redirect := func(key, target string) store.Binding {
		return store.Binding{Key: key, Target: target, Status: 302}
	}

	t.Run("ApplyBatch makes the writes whose preconditions hold, recorded with the batch", func(t *testing.T) {
		s := open(t)
		a := MustApply(t, s, store.Write{Binding: redirect("ark:12345/ba", "https://old.example.org/a"), By: "k"})
		MustApply(t, s, store.Write{Binding: redirect("ark:12345/bb", "https://old.example.org/b"), By: "k"})
		MustApply(t, s, store.Write{Binding: redirect("ark:12345/bb", "https://old.example.org/b2"), By: "k"})
		MustApply(t, s, store.Write{Binding: store.Binding{Key: "ark:12345/bw", Status: 410, Reason: "gone"}, By: "k"})
		var heard []string
		var mu sync.Mutex
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		s.Watch(wctx, func(keys []string) {
			mu.Lock()
			heard = append(heard, keys...)
			mu.Unlock()
		})
		batch, err := store.NewBatch(ctx, s)
		if err != nil || batch != 1 {
			t.Fatalf("the first batch: %d, %v; want 1", batch, err)
		}
		got, err := batcher(t, s).ApplyBatch(ctx, batch, []store.Write{
			{Binding: redirect("ark:12345/ba", "https://new.example.org/a"), IfVersion: a.Version, By: "mover"},
			{Binding: redirect("ark:12345/bb", "https://new.example.org/b"), IfVersion: 1, By: "mover"}, // stale: it is at 2
			{Binding: redirect("ark:12345/bw", "https://new.example.org/w"), By: "mover"},               // withdrawn
			{Binding: redirect("ark:12345/bn", "https://new.example.org/n"), Create: true, By: "mover"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 4 || got[0] == nil || got[1] != nil || got[2] != nil || got[3] == nil {
			t.Fatalf("ApplyBatch: %v; want a, nil (stale), nil (withdrawn), n", got)
		}
		if got[0].Version != 2 || got[0].By != "mover" || got[0].Target != "https://new.example.org/a" || got[3].Version != 1 {
			t.Errorf("as stored: %+v, %+v", got[0], got[3])
		}
		mu.Lock()
		if !slices.Contains(heard, "ark:12345/ba") || !slices.Contains(heard, "ark:12345/bn") {
			t.Errorf("Watch heard %v before ApplyBatch returned; want ba and bn among them", heard)
		}
		mu.Unlock()
		cur, hist, err := s.Get(ctx, "ark:12345/ba")
		if err != nil {
			t.Fatal(err)
		}
		sameBinding(t, cur, got[0])
		if len(hist) != 2 || hist[0].Batch != 0 || hist[1].Batch != batch || hist[1].Old.Target != "https://old.example.org/a" {
			t.Errorf("history of ba: %+v; want the first change outside the batch, the second in it", hist)
		}
		if b, _, _ := s.Get(ctx, "ark:12345/bb"); b.Version != 2 || b.Target != "https://old.example.org/b2" {
			t.Errorf("a stale write changed bb: %+v", b)
		}
		cs := changesOf(t, s, batch)
		if len(cs) != 2 || cs[0].Key != "ark:12345/ba" || cs[1].Key != "ark:12345/bn" || cs[0].Seq >= cs[1].Seq || cs[0].Batch != batch || cs[1].Old != nil {
			t.Errorf("BatchChanges: %+v; want ba then bn", cs)
		}
		if cs := changesOf(t, s, batch+1); len(cs) != 0 {
			t.Errorf("BatchChanges of a batch with nothing: %+v", cs)
		}
		if ok, err := store.BatchExists(ctx, s, batch); !ok || err != nil {
			t.Errorf("BatchExists(%d) = %v, %v", batch, ok, err)
		}
		if ok, err := store.BatchExists(ctx, s, batch+1); ok || err != nil {
			t.Errorf("BatchExists(%d) = %v, %v; want false", batch+1, ok, err)
		}
		if next, _ := store.NewBatch(ctx, s); next != batch+1 {
			t.Errorf("the next batch: %d, want %d", next, batch+1)
		}
	})

	t.Run("BatchChanges reads a large batch whole, in order, after a restart", func(t *testing.T) {
		s := open(t)
		const n = 2503
		if _, err := s.Import(ctx, Bindings(n), "importer"); err != nil {
			t.Fatal(err)
		}
		batch, err := store.NewBatch(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		for from := 0; from < n; from += 500 {
			var ws []store.Write
			for i := from; i < min(from+500, n); i++ {
				ws = append(ws, store.Write{Binding: redirect(Key(i), "https://new.example.org/"+fmt.Sprint(i)), IfVersion: 1, By: "mover"})
			}
			got, err := batcher(t, s).ApplyBatch(ctx, batch, ws)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(got, nil) {
				t.Fatalf("ApplyBatch of bindings at version 1: some not made")
			}
		}
		s = reopen(t, s)
		cs := changesOf(t, s, batch)
		if len(cs) != n {
			t.Fatalf("BatchChanges: %d records, want %d", len(cs), n)
		}
		for i := 1; i < n; i++ {
			if cs[i].Seq <= cs[i-1].Seq {
				t.Fatalf("BatchChanges out of order at %d", i)
			}
		}
	})

	t.Run("two batches over the same bindings change each once", func(t *testing.T) {
		s := open(t)
		const n = 200
		if _, err := s.Import(ctx, Bindings(n), "importer"); err != nil {
			t.Fatal(err)
		}
		made := make([][]*store.Binding, 2)
		var wg sync.WaitGroup
		for w := range made {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var ws []store.Write
				for i := range n {
					ws = append(ws, store.Write{Binding: redirect(Key(i), fmt.Sprintf("https://new.example.org/%d/%d", w, i)), IfVersion: 1, By: "mover"})
				}
				if w == 1 {
					slices.Reverse(ws)
				}
				got, err := batcher(t, s).ApplyBatch(ctx, uint64(w+1), ws)
				if err != nil {
					t.Error(err)
				}
				made[w] = got
			}()
		}
		wg.Wait()
		count := 0
		for _, got := range made {
			for _, b := range got {
				if b != nil {
					count++
				}
			}
		}
		if count != n {
			t.Errorf("%d writes made of two batches of %d over the same bindings at version 1; want %d", count, n, n)
		}
		if a, b := len(changesOf(t, s, 1)), len(changesOf(t, s, 2)); a+b != n {
			t.Errorf("the batches recorded %d and %d changes; want %d together", a, b, n)
		}
	})

	t.Run("a dump keeps the batches", func(t *testing.T) {
		src := open(t)
		MustApply(t, src, store.Write{Binding: redirect("ark:12345/d1", "https://old.example.org/1"), By: "k"})
		batch, err := store.NewBatch(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := batcher(t, src).ApplyBatch(ctx, batch, []store.Write{{Binding: redirect("ark:12345/d1", "https://new.example.org/1"), IfVersion: 1, By: "mover"}}); err != nil {
			t.Fatal(err)
		}
		var first bytes.Buffer
		if _, err := store.WriteDump(ctx, src, &first); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(first.Bytes(), []byte(`"batch":1`)) {
			t.Errorf("the dump does not hold the batch:\n%s", first.String())
		}
		dst := open(t)
		if _, err := store.ReadDump(ctx, dst, bytes.NewReader(first.Bytes())); err != nil {
			t.Fatal(err)
		}
		dst = reopen(t, dst)
		if cs := changesOf(t, dst, batch); len(cs) != 1 || cs[0].Key != "ark:12345/d1" {
			t.Errorf("BatchChanges in the loaded store: %+v", cs)
		}
		var again bytes.Buffer
		if _, err := store.WriteDump(ctx, dst, &again); err != nil {
			t.Fatal(err)
		}
		if again.String() != first.String() {
			t.Errorf("dumped again after loading:\n%s\nwant\n%s", again.String(), first.String())
		}
		if next, _ := store.NewBatch(ctx, dst); next != batch+1 {
			t.Errorf("the loaded store's next batch: %d, want %d", next, batch+1)
		}
	})
}
