package localcopy_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/localcopy"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap/zaptest"
)

// backends opens a store of each backend, empty, for a test.
var backends = []struct {
	name string
	open func(t *testing.T) store.Store
}{
	{"bolt", func(t *testing.T) store.Store {
		return testkit.Provision(t, &bolt.Store{Path: filepath.Join(t.TempDir(), "ark.db")})
	}},
	{"postgres", func(t *testing.T) store.Store {
		dsn := testkit.SharedPostgres(t).CreateDB(t)
		return testkit.Provision(t, &postgres.Store{DSN: dsn, Timeout: caddy.Duration(2 * time.Second)})
	}},
}

// openCopy opens a copy of s in dir, closed when the test ends, and waits
// until it serves.
func openCopy(t *testing.T, dir string, s store.Store, o localcopy.Options) *localcopy.Copy {
	t.Helper()
	if o.Logger == nil {
		o.Logger = zaptest.NewLogger(t)
	}
	c, err := localcopy.Open(dir, s, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	catchUp(t, c)
	return c
}

// catchUp waits until c has read the store's history to its end.
func catchUp(t *testing.T, c *localcopy.Copy) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.CatchUp(ctx); err != nil {
		t.Fatalf("catching up: %v (status %+v)", err, c.Status())
	}
	if !c.Serving() {
		t.Fatalf("the copy does not serve after catching up: %+v", c.Status())
	}
}

// importN adds n redirect bindings to s.
func importN(t *testing.T, s store.Store, n int) {
	t.Helper()
	if _, err := s.Import(context.Background(), storetest.Bindings(n), "test"); err != nil {
		t.Fatal(err)
	}
}

// sameAsStore checks that c answers every binding of s, and the keys
// extra, as s does.
func sameAsStore(t *testing.T, c *localcopy.Copy, s store.Store, extra ...string) {
	t.Helper()
	keys := append([]string(nil), extra...)
	if err := s.Each(context.Background(), func(b *store.Binding) error {
		keys = append(keys, b.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want, err := s.Lookup(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Lookup(keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if !sameBinding(got[i], want[i]) {
			t.Errorf("%s: the copy has %s, the store %s", k, describe(got[i]), describe(want[i]))
		}
	}
}

// sameBinding compares what resolution and the API read of a binding.
func sameBinding(a, b *store.Binding) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Meta) != len(b.Meta) {
		return false
	}
	for k, v := range a.Meta {
		if b.Meta[k] != v {
			return false
		}
	}
	return a.Key == b.Key && a.Target == b.Target && a.Status == b.Status && a.Passthrough == b.Passthrough &&
		a.Reason == b.Reason && a.Version == b.Version && a.By == b.By && a.Updated.Equal(b.Updated)
}

func describe(b *store.Binding) string {
	if b == nil {
		return "nothing"
	}
	return fmt.Sprintf("%q %d passthrough=%v meta=%v reason=%q v%d by %s at %s", b.Target, b.Status, b.Passthrough, b.Meta, b.Reason, b.Version, b.By, b.Updated)
}

// bind makes one write to s and fails the test on error.
func bind(t *testing.T, s store.Store, b store.Binding) *store.Binding {
	t.Helper()
	got, err := s.Apply(context.Background(), store.Write{Binding: b, By: "test"})
	if err != nil {
		t.Fatalf("%s: %v", b.Key, err)
	}
	return got
}

// noHistory is a store whose history cannot be read: a copy of it opened
// from disk serves what its files hold, and follows nothing.
type noHistory struct{ store.Store }

func (noHistory) Changes(context.Context, store.ChangesQuery, func(*store.Change) error) error {
	return store.ErrUnavailable
}

// opened opens the copy in dir of s, which it never reads the history
// of, closed when the test ends, and waits until it is opened: serving
// what its files hold, or, when they cannot be used, not serving.
func opened(t *testing.T, dir string, s store.Store) *localcopy.Copy {
	t.Helper()
	c, err := localcopy.Open(dir, noHistory{s}, localcopy.Options{Poll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	testkit.WaitFor(t, "the copy to be opened", func() bool { return c.Status().State != "opening" })
	return c
}

// openFromDisk is opened, for files that can be used: it fails the test
// unless the copy serves from them.
func openFromDisk(t *testing.T, dir string, s store.Store) *localcopy.Copy {
	t.Helper()
	c := opened(t, dir, s)
	if !c.Serving() {
		t.Fatalf("the copy on disk does not serve: %+v", c.Status())
	}
	return c
}

// heldHistory is a store whose history is read only once released is
// closed: a copy's first catch-up waits for the test.
type heldHistory struct {
	store.Store
	released chan struct{}
}

func (h heldHistory) Changes(ctx context.Context, q store.ChangesQuery, fn func(*store.Change) error) error {
	select {
	case <-h.released:
	case <-ctx.Done():
		return ctx.Err()
	}
	return h.Store.Changes(ctx, q, fn)
}
