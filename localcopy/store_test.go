package localcopy_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/localcopy"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddyserver/caddy/v2"
)

// TestStoreReadsItsOwnWrites writes through a Store whose copy never
// reads the history by itself (an hour between reads): each write is in
// the copy when it returns, and Watch has heard of its key.
func TestStoreReadsItsOwnWrites(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			inner := be.open(t)
			importN(t, inner, 50)
			c := openCopy(t, t.TempDir(), inner, localcopy.Options{Poll: time.Hour})
			s := localcopy.Wrap(inner, c)
			var mu sync.Mutex
			var heard []string
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s.Watch(ctx, func(keys []string) {
				mu.Lock()
				heard = append(heard, keys...)
				mu.Unlock()
			})
			var touched []string
			for round := 1; round <= 3; round++ {
				// Each write checked as it returns, before the copy's
				// reader, woken by the store, reads the history.
				ws := []store.Binding{
					{Key: storetest.Key(20 + round), Target: "https://own.example.org/" + strconv.Itoa(round), Status: 302},
					{Key: storetest.Key(10 + round), Status: 410, Reason: "withdrawn through the Store"},
				}
				for _, w := range ws {
					bind(t, s, w)
					sameAsStore(t, c, inner, w.Key)
					touched = append(touched, w.Key)
				}
			}
			batch, err := store.NewBatch(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.ApplyBatch(ctx, batch, []store.Write{{Binding: store.Binding{Key: storetest.Key(3), Target: "https://batch.example.org/3", Status: 307}, By: "test"}}); err != nil {
				t.Fatal(err)
			}
			touched = append(touched, storetest.Key(3))
			sameAsStore(t, c, inner, touched...)
			mu.Lock()
			for _, k := range touched {
				if !slices.Contains(heard, k) {
					t.Errorf("Watch did not hear of %s", k)
				}
			}
			mu.Unlock()
			got, err := s.Lookup(ctx, []string{storetest.Key(11)})
			if err != nil || got[0] == nil || got[0].Status != 410 {
				t.Errorf("the withdrawal made through the Store is not what it looks up: %v %v", describe(got[0]), err)
			}
		})
	}
}

// TestStoreBatchGivenBack writes a batch in parts through a Store and
// aborts it after the copy read the history (where a bbolt store shows a
// batch's parts): the copy gives back what the store gives back. A
// committed batch is in the copy when Commit returns.
func TestStoreBatchGivenBack(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			inner := be.open(t)
			importN(t, inner, 20)
			c := openCopy(t, t.TempDir(), inner, localcopy.Options{Poll: time.Hour})
			s := localcopy.Wrap(inner, c)
			ctx := context.Background()
			part := []store.Write{
				{Binding: store.Binding{Key: storetest.Key(4), Target: "https://batch.example.org/4", Status: 302}, By: "test"},
				{Binding: store.Binding{Key: storetest.Key(500), Target: "https://batch.example.org/500", Status: 302}, By: "test"},
			}
			for _, commit := range []bool{false, true} {
				batch, err := store.NewBatch(ctx, s)
				if err != nil {
					t.Fatal(err)
				}
				w, err := s.OpenBatch(ctx, batch)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.Apply(ctx, part); err != nil {
					t.Fatal(err)
				}
				catchUp(t, c)
				if commit {
					err = w.Commit(ctx)
				} else {
					err = w.Abort()
				}
				if err != nil {
					t.Fatal(err)
				}
				sameAsStore(t, c, inner, storetest.Key(500))
			}
		})
	}
}

// TestCopyThroughAnOutage stops PostgreSQL: the copy answers every key
// as the store did, a withdrawal made before the stop included; a copy
// reopened while the server is down serves at once, from disk; once the
// server is back the copy follows it again.
func TestCopyThroughAnOutage(t *testing.T) {
	cl := testkit.StartPostgres(t)
	dsn := cl.CreateDB(t)
	inner := testkit.Provision(t, &postgres.Store{DSN: dsn, Timeout: caddy.Duration(500 * time.Millisecond)})
	importN(t, inner, 300)
	dir := t.TempDir()
	c := openCopy(t, dir, inner, localcopy.Options{Poll: 50 * time.Millisecond})
	s := localcopy.Wrap(inner, c)
	bind(t, inner, store.Binding{Key: storetest.Key(7), Status: 410, Reason: "withdrawn by another node"})
	bind(t, s, store.Binding{Key: storetest.Key(8), Status: 410, Reason: "withdrawn by this node"})
	catchUp(t, c)
	keys := []string{storetest.Key(999999)}
	if err := inner.Each(context.Background(), func(b *store.Binding) error {
		keys = append(keys, b.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want, err := inner.Lookup(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Stop(); err != nil {
		t.Fatal(err)
	}
	check := func(when string, c *localcopy.Copy) {
		t.Helper()
		got, err := localcopy.Wrap(inner, c).Lookup(context.Background(), keys)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		for i, k := range keys {
			if !sameBinding(got[i], want[i]) {
				t.Errorf("%s: %s: the copy has %s, the store had %s", when, k, describe(got[i]), describe(want[i]))
			}
		}
	}
	check("the server stopped", c)
	if _, err := s.Apply(context.Background(), store.Write{Binding: store.Binding{Key: storetest.Key(9), Status: 410}, By: "test"}); err == nil {
		t.Error("a write was acknowledged while the server was stopped")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := localcopy.Open(dir, inner, localcopy.Options{Poll: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = again.Close() })
	// Asked at once, before or while the copy on disk is checked: the
	// server does not answer, and the lookup waits for the check.
	check("reopened while the server is down", again)
	if !again.Serving() {
		t.Fatal("a copy reopened while the server is down does not serve")
	}
	time.Sleep(300 * time.Millisecond)
	if st := again.Status(); st.Following || st.LagSeconds < 0.2 {
		t.Errorf("a copy that cannot read the history says %+v", st)
	}
	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := inner.Apply(context.Background(), store.Write{Binding: store.Binding{Key: storetest.Key(9), Target: "https://back.example.org/", Status: 302}, By: "test"})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	catchUp(t, again)
	sameAsStore(t, again, inner)
	if st := again.Status(); !st.Following || st.BehindChanges != 0 {
		t.Errorf("a copy caught up says %+v", st)
	}
}

// TestStoreLookupLocal reads a Store's copy through LookupLocal, as the
// resolver does: once the copy serves, it answers, as Lookup does.
func TestStoreLookupLocal(t *testing.T) {
	inner := backends[0].open(t)
	importN(t, inner, 100)
	c := openCopy(t, t.TempDir(), inner, localcopy.Options{Poll: time.Hour})
	s := localcopy.Wrap(inner, c).(interface {
		LookupLocal([]string) ([]*store.Binding, bool, error)
	})
	keys := []string{storetest.Key(7), storetest.Key(7) + "/c1", storetest.Key(99)}
	got, ok, err := s.LookupLocal(keys)
	if err != nil || !ok {
		t.Fatalf("LookupLocal: ok %v, error %v: want the copy's answer", ok, err)
	}
	want, err := c.Lookup(keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if !sameBinding(got[i], want[i]) {
			t.Errorf("%s: LookupLocal has %s, Lookup %s", k, describe(got[i]), describe(want[i]))
		}
	}
}
