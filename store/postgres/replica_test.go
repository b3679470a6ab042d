package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"go.uber.org/zap"
)

// TestPostgresReadsFromAStandby: a node whose dsn names the standby
// first and both servers, without target_session_attrs, and whose
// read_dsn is the standby alone. Its writes go to the primary; it reads
// and follows the history on the standby, where no NOTIFY comes, and is
// told of another node's change by key; it says it follows a standby.
// With the primary killed, its reads and its following go on, its
// writes fail with ErrUnavailable, and a node started then resolves
// from the standby too; once the standby is promoted its
// writes are taken again, without reopening it, and it says it follows
// a primary.
func TestPostgresReadsFromAStandby(t *testing.T) {
	r := testkit.StartReplicated(t)
	db := r.CreateDB(t)
	primary := newNode(t, r.Primary.DSN(db))
	dsn := fmt.Sprintf("host=127.0.0.1,127.0.0.1 port=%d,%d user=ark dbname=%s sslmode=disable", r.Standby.Port, r.Primary.Port, db)
	b := replicaNode(t, dsn, r.Standby.DSN(db))
	seen := new(changes)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	b.Watch(ctx, seen.changed)
	testkit.WaitFor(t, "the node to follow the standby", func() bool { return b.Replication().Server == "standby" })

	bind := func(on *Backend, key, target string) error {
		_, err := on.Apply(ctx, store.Write{Binding: store.Binding{Key: key, Target: target, Status: 302}, By: "t"})
		return err
	}
	if err := bind(b, "ark:12345/own", "/own"); err != nil {
		t.Fatalf("a write through a dsn that names the standby first: %v", err)
	}
	if err := bind(primary, "ark:12345/other", "/other"); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the other node's change to be told by key", func() bool {
		seen.mu.Lock()
		defer seen.mu.Unlock()
		return slices.Contains(seen.keys, "ark:12345/other")
	})
	got, err := b.Lookup(ctx, []string{"ark:12345/other", "ark:12345/own"})
	if err != nil || got[0] == nil || got[0].Target != "/other" || got[1] == nil || got[1].Target != "/own" {
		t.Fatalf("lookups on the standby: %v, %v", got, err)
	}
	if rep := b.Replication(); !rep.Streaming || !rep.Writes || !rep.Reads || rep.HistorySeq != 2 {
		t.Errorf("while both servers run: %+v, want streaming, writes and reads up, history read to 2", rep)
	}

	r.KillPrimary(t)
	if err := bind(b, "ark:12345/lost", "/lost"); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("a write with the primary dead: %v, want ErrUnavailable", err)
	}
	if got, err := b.Lookup(ctx, []string{"ark:12345/other"}); err != nil || got[0] == nil {
		t.Errorf("a lookup with the primary dead: %v, %v", got, err)
	}
	// A node started now, as after a restart, resolves from the standby.
	restarted, err := newPGBackend(dsn, r.Standby.DSN(db), DefaultSchema, 0, time.Second, zap.NewNop())
	if err != nil {
		t.Fatalf("a node started while the primary is dead: %v", err)
	}
	t.Cleanup(func() { restarted.Destruct() })
	if got, err := restarted.Lookup(ctx, []string{"ark:12345/other"}); err != nil || got[0] == nil || got[0].Target != "/other" {
		t.Errorf("a lookup on a node started while the primary is dead: %v, %v", got, err)
	}
	testkit.WaitFor(t, "the standby to say it no longer streams", func() bool { return !b.Replication().Streaming })
	if rep := b.Replication(); rep.Writes || !rep.Reads || !rep.Following || rep.Server != "standby" {
		t.Errorf("with the primary dead: %+v, want writes down, reads up, following the standby", rep)
	}

	r.Promote(t)
	testkit.WaitFor(t, "a write to be taken after the promotion", func() bool { return bind(b, "ark:12345/after", "/after") == nil })
	testkit.WaitFor(t, "the node to follow the promoted primary", func() bool { return b.Replication().Server == "primary" })
	if got, err := b.Lookup(ctx, []string{"ark:12345/after", "ark:12345/lost"}); err != nil || got[0] == nil || got[1] != nil {
		t.Errorf("after the promotion: %v, %v; want the write taken after it, and not the one refused before", got, err)
	}
}

// TestPostgresChangesWhileNoPrimary: a node whose dsn asks for the
// primary (read-write) and has no read_dsn reads the history, by
// sequence, from the synchronous standby while the primary is dead, a
// withdrawal made just before its death included: a local copy that
// follows it goes on. Its lookups get ErrUnavailable meanwhile.
func TestPostgresChangesWhileNoPrimary(t *testing.T) {
	r := testkit.StartReplicated(t)
	db := r.CreateDB(t)
	b := replicaNode(t, r.DSN(db, "read-write"), "")
	ctx := context.Background()
	if _, err := b.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/w", Target: "/w", Status: 302}, By: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/w", Status: 410, Reason: "gone"}, By: "t"}); err != nil {
		t.Fatal(err)
	}
	r.KillPrimary(t)
	if _, err := b.Lookup(ctx, []string{"ark:12345/w"}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("a lookup with the primary dead and no read_dsn: %v, want ErrUnavailable", err)
	}
	var got []*store.Change
	if err := b.Changes(ctx, store.ChangesQuery{After: 1}, func(c *store.Change) error {
		got = append(got, c)
		return nil
	}); err != nil {
		t.Fatalf("the history with the primary dead: %v", err)
	}
	if len(got) != 1 || got[0].Seq != 2 || got[0].New == nil || got[0].New.Status != 410 {
		t.Fatalf("the history after seq 1 with the primary dead: %+v, want the withdrawal", got)
	}
}

// TestPostgresWatchLapses: a node whose dsn names a primary and its
// synchronous standby (read-write) and that follows the history on the
// primary is told once that its Watch lapsed when the primary dies, and
// goes on following the history on the standby, a withdrawal made just
// before the death told by key; once the standby is promoted it follows
// it as the primary, without another lapse: a server it leaves for
// another loses it nothing. A watcher whose context is done is not told.
func TestPostgresWatchLapses(t *testing.T) {
	r := testkit.StartReplicated(t)
	db := r.CreateDB(t)
	b := replicaNode(t, r.DSN(db, "read-write"), "")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var lapses, gone atomic.Int32
	b.WatchLapses(ctx, func() { lapses.Add(1) })
	goneCtx, leave := context.WithCancel(ctx)
	b.WatchLapses(goneCtx, func() { gone.Add(1) })
	leave()
	seen := new(changes)
	b.Watch(ctx, seen.changed)
	testkit.WaitFor(t, "the node to follow the primary", func() bool {
		rp := b.Replication()
		return rp.Following && rp.Server == "primary"
	})

	other := newNode(t, r.Primary.DSN(db))
	if _, err := other.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/w", Status: 410, Reason: "gone"}, By: "t"}); err != nil {
		t.Fatal(err)
	}
	r.KillPrimary(t)
	testkit.WaitFor(t, "the lapse to be told", func() bool { return lapses.Load() > 0 })
	testkit.WaitFor(t, "the withdrawal to be told by key", func() bool {
		seen.mu.Lock()
		defer seen.mu.Unlock()
		return slices.Contains(seen.keys, "ark:12345/w")
	})
	testkit.WaitFor(t, "the node to follow the standby", func() bool {
		rp := b.Replication()
		return rp.Following && rp.Server == "standby"
	})
	r.Promote(t)
	testkit.WaitFor(t, "the node to follow the promoted standby as the primary", func() bool {
		rp := b.Replication()
		return rp.Following && rp.Server == "primary"
	})
	if n := lapses.Load(); n != 1 {
		t.Errorf("%d lapses told, want 1: the primary's death", n)
	}
	if n := gone.Load(); n != 0 {
		t.Errorf("a watcher whose context was done was told of %d lapses", n)
	}
}

// replicaNode opens a node's backend on dsn (and readDSN, "" for none)
// with a one-second timeout, closed when the test ends.
func replicaNode(t *testing.T, dsn, readDSN string) *Backend {
	t.Helper()
	b, err := newPGBackend(dsn, readDSN, DefaultSchema, 0, time.Second, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Destruct() })
	return b
}
