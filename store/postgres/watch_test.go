package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"
)

// TestPostgresWatchXmaxHole: a snapshot's xip lists only the running
// transactions below its xmax (latestCompletedXid+1). A writer that got
// its xid after another writer's, but its history seq before it, and
// commits after it, is neither in xip nor above the seq read: the
// listener must still report its change, or the node serves its cached
// answer for good.
//
// Two raw connections play another node's Apply (same statements).
func TestPostgresWatchXmaxHole(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	b := newNode(t, dsn)
	seen, _ := watching(t, b, dsn, 1)
	ctx := context.Background()

	c1, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close(ctx)
	c2, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	exec := func(c *pgx.Conn, sql string, args ...any) {
		t.Helper()
		if _, err := c.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	write := func(c *pgx.Conn, key string) {
		exec(c, `INSERT INTO ark.bindings (key, target, status, version, updated, by) VALUES ($1, '/x', 302, 1, now(), 'other')`, key)
		exec(c, `INSERT INTO ark.history (time, key, by, new) VALUES (now(), $1, 'other', '{}')`, key)
	}
	exec(c1, "BEGIN")
	exec(c1, "SELECT pg_current_xact_id()") // xid X
	exec(c2, "BEGIN")
	exec(c2, "SELECT pg_current_xact_id()") // xid X+1
	write(c2, "ark:12345/late")             // seq s
	write(c1, "ark:12345/early")            // seq s+1
	exec(c1, "SELECT pg_notify('caddy_ark.ark', '')")
	exec(c1, "COMMIT") // latestCompletedXid = X: X+1 is not in xip
	seen.waitFor(t, "ark:12345/early")
	exec(c2, "SELECT pg_notify('caddy_ark.ark', '')")
	exec(c2, "COMMIT")
	seen.waitFor(t, "ark:12345/late") // else a cached answer for it stays stale
}

// TestPostgresLongestSchema: the NOTIFY channel of a schema is
// "caddy_ark." and its name, and PostgreSQL's channel names are at most 63
// bytes: the longest schema name Validate allows must work for writes,
// and one byte more is refused at load, not at the first write.
func TestPostgresLongestSchema(t *testing.T) {
	schema := strings.Repeat("s", pgMaxSchemaLen)
	s := &Store{DSN: testkit.SharedPostgres(t).CreateDB(t), Schema: schema}
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if err := (&Store{DSN: s.DSN, Schema: schema + "s"}).Validate(); err == nil {
		t.Errorf("a schema of %d bytes passed Validate", pgMaxSchemaLen+1)
	}
	s = testkit.Provision(t, s)
	ctx := context.Background()
	if _, err := s.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/a", Target: "/a", Status: 302}, By: "t"}); err != nil {
		t.Errorf("Apply with a %d-byte schema: %v", pgMaxSchemaLen, err)
	}
	if _, err := s.Reserve(ctx, []store.Binding{{Key: "ark:12345/b"}}, "t"); err != nil {
		t.Errorf("Reserve with a %d-byte schema: %v", pgMaxSchemaLen, err)
	}
}

// TestPostgresListenerReconnectsWithThePool: after an outage long enough
// for the listener's reconnection pause to grow to 5s, the pool answers
// (and the cache fills) as soon as the server is back; the listener must
// reconnect then too, not when its pause ends, or other nodes' changes go
// unreported meanwhile.
func TestPostgresListenerReconnectsWithThePool(t *testing.T) {
	c := testkit.StartPostgres(t)
	dsn := c.CreateDB(t)
	a := newNode(t, dsn)
	b, err := newPGBackend(dsn, "", DefaultSchema, 0, time.Second, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Destruct() })
	seen, _ := watching(t, b, dsn, 2)
	ctx := context.Background()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(7 * time.Second) // the outage itself: long enough for the listener's pause to reach 5s
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// The server is back: b answers lookups (and caches them) at once.
	testkit.WaitFor(t, "b's pool to reach the server", func() bool {
		_, err := b.Lookup(ctx, []string{"ark:12345/k"})
		return err == nil
	})
	if _, err := a.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/k", Target: "/k", Status: 302}, By: "t"}); err != nil {
		t.Fatal(err)
	}
	// The bound is the "seen by another node within one second",
	// with room for a loaded machine; without the reconnection it is the
	// rest of the listener's 5s pause.
	if d := seen.waitFor(t, "ark:12345/k"); d > 3*time.Second {
		t.Errorf("another node's change was reported %v after it committed, with the server up all along: stale cached answers for that long", d)
	}
}

// stallProxy forwards TCP connections to addr until stall, after which the
// connections open so far carry nothing more, but stay open: a NAT or
// firewall that lost its state, a peer that froze. Later connections are
// forwarded normally.
type stallProxy struct {
	ln      net.Listener
	mu      sync.Mutex
	stalled []*atomic.Bool
	done    chan struct{}
}

func newStallProxy(t *testing.T, addr string) *stallProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{ln: ln, done: make(chan struct{})}
	t.Cleanup(func() { close(p.done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			st := new(atomic.Bool)
			p.mu.Lock()
			p.stalled = append(p.stalled, st)
			p.mu.Unlock()
			pipe := func(dst, src net.Conn) {
				buf := make([]byte, 32<<10)
				for {
					n, err := src.Read(buf)
					if st.Load() {
						<-p.done
						return
					}
					if n > 0 {
						if _, err := dst.Write(buf[:n]); err != nil {
							break
						}
					}
					if err != nil {
						break
					}
				}
				dst.Close()
				src.Close()
			}
			go pipe(u, c)
			go pipe(c, u)
		}
	}()
	return p
}

func (p *stallProxy) stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range p.stalled {
		st.Store(true)
	}
}

// TestPostgresListenerStalled: a listener connection that silently stops
// carrying data (a firewall that forgot it, a frozen peer) while the pool
// opens new connections and answers must be noticed and replaced within
// seconds, not when TCP keepalive gives up minutes later: until then the
// node serves stale cached answers.
func TestPostgresListenerStalled(t *testing.T) {
	c := testkit.SharedPostgres(t)
	dsn := c.CreateDB(t)
	a := newNode(t, dsn)
	p := newStallProxy(t, fmt.Sprintf("127.0.0.1:%d", c.Port))
	bdsn := strings.Replace(dsn, fmt.Sprintf(":%d/", c.Port), fmt.Sprintf(":%d/", p.ln.Addr().(*net.TCPAddr).Port), 1)
	b, err := newPGBackend(bdsn, "", DefaultSchema, 0, time.Second, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { go b.Destruct() }) // its stalled listener may never finish
	seen, _ := watching(t, b, dsn, 2)
	ctx := context.Background()
	p.stall()
	if _, err := a.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/s", Target: "/s", Status: 302}, By: "t"}); err != nil {
		t.Fatal(err)
	}
	// b itself answers: its pool replaces the stalled connections.
	var got []*store.Binding
	for range 10 {
		if got, err = b.Lookup(ctx, []string{"ark:12345/s"}); err == nil {
			break
		}
	}
	if err != nil || got[0] == nil {
		t.Fatalf("b's Lookup after the stall: %v, %v", got, err)
	}
	seen.waitFor(t, "ark:12345/s") // else its cached answers stay stale until TCP keepalive gives up, minutes later
}

// TestPostgresWatchUnderConcurrentWriters: the hole of
// TestPostgresWatchXmaxHole through the store's own Apply: 12 writers on
// three other nodes, each change on its own key, and one watching node
// that must be told of every key, or to forget everything after the
// key's write returned.
func TestPostgresWatchUnderConcurrentWriters(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	writers := []*Backend{newNode(t, dsn), newNode(t, dsn), newNode(t, dsn)}
	b := newNode(t, dsn)
	var (
		mu       sync.Mutex
		reported = map[string]bool{}
		forgets  []time.Time // when b was told to forget everything
		written  = map[string]time.Time{}
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.Watch(ctx, func(keys []string) {
		mu.Lock()
		defer mu.Unlock()
		if keys == nil {
			forgets = append(forgets, time.Now())
		}
		for _, k := range keys {
			reported[k] = true
		}
	})
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	waitListening(t, admin, 4)
	var wg sync.WaitGroup
	for g := range 12 {
		wg.Go(func() {
			for i := range 150 {
				key := fmt.Sprintf("ark:12345/g%d-%d", g, i)
				if _, err := writers[g%len(writers)].Apply(ctx, store.Write{Binding: store.Binding{Key: key, Target: "/x", Status: 302}, By: "t"}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				written[key] = time.Now()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	covered := func(key string, at time.Time) bool {
		if reported[key] {
			return true
		}
		for _, f := range forgets {
			if f.After(at) {
				return true
			}
		}
		return false
	}
	var missed []string
	testkit.WaitFor(t, "every change to be reported", func() bool {
		mu.Lock()
		defer mu.Unlock()
		missed = missed[:0]
		for k, at := range written {
			if !covered(k, at) {
				missed = append(missed, k)
			}
		}
		return len(missed) == 0
	})
	if len(written) != 12*150 {
		t.Errorf("%d writes, want %d", len(written), 12*150)
	}
}

// TestPostgresTableOnlyRole: once an owner has made the schema, a node may
// run as a role that may only read and write the store's tables: its
// start finds the schema current and needs no CREATE on the database.
func TestPostgresTableOnlyRole(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	newNode(t, dsn) // the owner migrates
	admin, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	role := fmt.Sprintf("dml%d", time.Now().UnixNano())
	for _, sql := range []string{
		"CREATE ROLE " + role + " LOGIN",
		"GRANT USAGE ON SCHEMA ark TO " + role,
		"GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA ark TO " + role,
		"GRANT USAGE ON ALL SEQUENCES IN SCHEMA ark TO " + role,
		"REVOKE CREATE ON SCHEMA public FROM PUBLIC",
	} {
		if _, err := admin.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	rdsn := strings.Replace(dsn, "postgres://ark@", "postgres://"+role+"@", 1)
	b, err := newPGBackend(rdsn, "", DefaultSchema, 0, defaultPGTimeout, zap.NewNop())
	if err != nil {
		t.Fatalf("a node as a role with the table privileges it needs: %v", err)
	}
	defer b.Destruct()
	if _, err := b.Lookup(context.Background(), []string{"ark:12345/x"}); err != nil {
		t.Errorf("Lookup: %v", err)
	}
	if _, err := b.Apply(context.Background(), store.Write{Binding: store.Binding{Key: "ark:12345/x", Target: "/x", Status: 302}, By: "t"}); err != nil {
		t.Errorf("Apply: %v", err)
	}
}

// TestPostgresWriteBehindALockIsBusyNotDown: a write that waits longer than
// the store's timeout behind another writer's table lock (an import's)
// answers ErrUnavailable saying the store is busy, and the server is not
// recorded as down: the log and caddy_ark_postgres_up say what happened.
func TestPostgresWriteBehindALockIsBusyNotDown(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	b, err := newPGBackend(dsn, "", DefaultSchema, 0, time.Second, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Destruct() })
	ctx := context.Background()
	if _, err := b.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/before", Target: "/b", Status: 302}, By: "t"}); err != nil {
		t.Fatal(err)
	}
	holder, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE ark.bindings IN SHARE ROW EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	_, err = b.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/during", Target: "/d", Status: 302}, By: "t"})
	if !errors.Is(err, store.ErrUnavailable) || !errors.Is(err, errStoreBusy) {
		t.Errorf("Apply behind the lock: %v; want ErrUnavailable saying the store is busy", err)
	}
	var up dto.Metric
	if err := pgMetrics.up.WithLabelValues(DefaultSchema).Write(&up); err != nil {
		t.Fatal(err)
	}
	if v := up.GetGauge().GetValue(); v != 1 {
		t.Errorf("caddy_ark_postgres_up %v while the server answered, want 1", v)
	}
	if got, err := b.Lookup(ctx, []string{"ark:12345/before"}); err != nil || got[0] == nil {
		t.Errorf("a lookup beside the lock: %v, %v", got, err)
	}
}

// TestPostgresWatchForgetsAHistoryThatChanged: a database failed over to a
// replica that had not received the last changes, or restored, can hold a
// different record under a sequence number the node has read, and hand
// out numbers again: the node cannot tell which keys changed, so it must
// forget everything rather than go on from its old place.
func TestPostgresWatchForgetsAHistoryThatChanged(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	a, b := newNode(t, dsn), newNode(t, dsn)
	seen, admin := watching(t, b, dsn, 2)
	ctx := context.Background()
	if _, err := a.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/kept", Target: "/k", Status: 302}, By: "t"}); err != nil {
		t.Fatal(err)
	}
	seen.waitFor(t, "ark:12345/kept")
	seen.mu.Lock()
	forgot := seen.all
	seen.mu.Unlock()
	// The last record is lost, and another change takes its number.
	for _, sql := range []string{
		"BEGIN",
		"CREATE TEMPORARY TABLE lost ON COMMIT DROP AS SELECT * FROM ark.history WHERE seq = (SELECT max(seq) FROM ark.history)",
		"DELETE FROM ark.history WHERE seq = (SELECT seq FROM lost)",
		"INSERT INTO ark.history (seq, time, key, by, new) SELECT seq, now(), 'ark:12345/other', 'other', '{}' FROM lost",
		"COMMIT",
	} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	testkit.WaitFor(t, "the node to forget everything", func() bool {
		seen.mu.Lock()
		defer seen.mu.Unlock()
		return seen.all > forgot
	})
}
