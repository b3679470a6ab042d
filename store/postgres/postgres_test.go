package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddyserver/caddy/v2"
	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
)

// newNode is one more node on dsn: a backend of its own, with its own
// connections and listener, as another Caddy process would have.
func newNode(t testing.TB, dsn string) *Backend {
	t.Helper()
	b, err := newPGBackend(dsn, "", DefaultSchema, 0, defaultPGTimeout, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Destruct() })
	return b
}

// changes collects what a Watch reports.
type changes struct {
	mu   sync.Mutex
	keys []string
	all  int // changed(nil) calls
}

func (c *changes) changed(keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if keys == nil {
		c.all++
	}
	c.keys = append(c.keys, keys...)
}

// waitFor polls until c has seen key, or was told to forget everything
// after waitFor began, failing after a generous deadline. It returns how
// long that took.
func (c *changes) waitFor(t *testing.T, key string) time.Duration {
	t.Helper()
	start := time.Now()
	c.mu.Lock()
	forgot := c.all
	c.mu.Unlock()
	for time.Since(start) < 20*time.Second {
		c.mu.Lock()
		seen := slices.Contains(c.keys, key) || c.all > forgot
		c.mu.Unlock()
		if seen {
			return time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no change reported for %s", key)
	return 0
}

// watching watches b for the rest of the test, and waits until the
// database at dsn has listeners change listeners listening; it returns
// what b is told and a connection to the database, both for the test.
func watching(t *testing.T, b *Backend, dsn string, listeners int) (*changes, *pgx.Conn) {
	t.Helper()
	seen := new(changes)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	b.Watch(ctx, seen.changed)
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	waitListening(t, conn, listeners)
	return seen, conn
}

// waitListening waits until n listeners of the database of conn are
// connected and idle: they have read the history once.
func waitListening(t *testing.T, conn *pgx.Conn, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var idle int
		err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND datname = current_database() AND state = 'idle'`, pgListenerName).Scan(&idle)
		if err != nil {
			t.Fatal(err)
		}
		if idle == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d listeners idle, want %d", idle, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPostgresStoreSuite runs the conformance suite, each store in a
// schema of its own in one database.
func TestPostgresStoreSuite(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	var schemas atomic.Int64
	open := func(t *testing.T) store.Store {
		return testkit.Provision(t, &Store{DSN: dsn, Schema: fmt.Sprintf("suite%d", schemas.Add(1))})
	}
	reopen := func(t *testing.T, s store.Store) store.Store {
		old := s.(*Store)
		if err := old.Cleanup(); err != nil {
			t.Fatal(err)
		}
		return testkit.Provision(t, &Store{DSN: dsn, Schema: old.Schema})
	}
	storetest.Run(t, open, reopen)
}

func TestPostgresMigrateConcurrently(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := newPGBackend(dsn, "", "ids", 0, 10*time.Second, zap.NewNop())
			if err == nil {
				_, err = b.Count(context.Background(), "c", 1)
				b.Destruct()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("node %d: %v", i, err)
		}
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var version, rows int
	if err := conn.QueryRow(context.Background(), "SELECT max(version), count(*) FROM ids.schema_version").Scan(&version, &rows); err != nil {
		t.Fatal(err)
	}
	if version != len(pgMigrations) || rows != 1 {
		t.Errorf("schema_version: version %d in %d rows, want %d in 1", version, rows, len(pgMigrations))
	}
	var count int64
	if err := conn.QueryRow(context.Background(), "SELECT value FROM ids.counters WHERE name = 'c'").Scan(&count); err != nil || count != 6 {
		t.Errorf("counter after 6 nodes added 1: %d, %v", count, err)
	}
}

func TestPostgresNewerSchemaRefused(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	newNode(t, dsn)
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "UPDATE ark.schema_version SET version = version + 1"); err != nil {
		t.Fatal(err)
	}
	_, err = newPGBackend(dsn, "", DefaultSchema, 0, defaultPGTimeout, zap.NewNop())
	if err == nil || errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("opening a schema newer than the code: %v, want a refusal", err)
	}
	t.Log(err)
}

// TestPostgresWatchOtherNode: a change on one node is reported on the
// other, by NOTIFY, and also when the other's listener was disconnected
// while it happened (the change sequence is read again).
func TestPostgresWatchOtherNode(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	a, b := newNode(t, dsn), newNode(t, dsn)
	seen, conn := watching(t, b, dsn, 2)
	ctx := context.Background()
	bind := func(key string) {
		t.Helper()
		if _, err := a.Apply(ctx, store.Write{Binding: store.Binding{Key: key, Target: "https://example.org/" + key, Status: 302}, By: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	bind("ark:12345/one")
	seen.waitFor(t, "ark:12345/one")

	// Cut every listener, then change while they reconnect: the NOTIFY
	// reaches nobody.
	if _, err := conn.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", pgListenerName); err != nil {
		t.Fatal(err)
	}
	bind("ark:12345/two")
	seen.waitFor(t, "ark:12345/two")
}

// TestPostgresUnavailable: a stopped server makes ErrUnavailable, not a
// miss; the store answers again once the server is back, by itself.
func TestPostgresUnavailable(t *testing.T) {
	c := testkit.StartPostgres(t)
	s := testkit.Provision(t, &Store{DSN: c.CreateDB(t), Timeout: caddy.Duration(time.Second)})
	ctx := context.Background()
	if _, err := s.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/a", Target: "/a", Status: 302}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lookup(ctx, []string{"ark:12345/a"}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Lookup with the server stopped: %v, want ErrUnavailable", err)
	}
	if _, err := s.Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/b", Target: "/b", Status: 302}}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Apply with the server stopped: %v, want ErrUnavailable", err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Three failures opened the circuit (the listener's included): until
	// a probe gets through, at most pgCooldown after the restart, a
	// lookup fails at once, and with ErrUnavailable.
	restarted := time.Now()
	for {
		got, err := s.Lookup(ctx, []string{"ark:12345/a"})
		if err == nil {
			if got[0] == nil || got[0].Target != "/a" {
				t.Fatalf("Lookup after restart: %v", got)
			}
			break
		}
		if !errors.Is(err, store.ErrUnavailable) || time.Since(restarted) > pgCooldown+5*time.Second {
			t.Fatalf("Lookup %v after restart: %v", time.Since(restarted), err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPostgresImportConflicts(t *testing.T) {
	s := testkit.Provision(t, &Store{DSN: testkit.SharedPostgres(t).CreateDB(t)})
	ctx := context.Background()
	x := store.Binding{Key: "ark:12345/x", Target: "/x", Status: 302, Meta: map[string]string{"who": "me"}}
	y := store.Binding{Key: "ark:12345/y", Target: "/y", Status: 302}
	n, err := s.Import(ctx, storetest.Feed([]*store.Binding{&x, &y, &x}, nil), "importer")
	if err != nil || n != 2 {
		t.Fatalf("import: %d, %v; want 2 added", n, err)
	}
	// Bound the same way: skipped.
	if n, err := s.Import(ctx, storetest.Feed([]*store.Binding{&y, &x}, nil), "importer"); err != nil || n != 0 {
		t.Errorf("import again: %d, %v; want 0 added", n, err)
	}
	z := store.Binding{Key: "ark:12345/z", Target: "/z", Status: 303}
	y2 := y
	y2.Target = "/other"
	tests := []struct {
		input []*store.Binding
		index int
		key   string
	}{
		{[]*store.Binding{&z, &y2}, 1, y.Key},                  // differs from the store
		{[]*store.Binding{&z, &x, &z, {Key: z.Key}}, 3, z.Key}, // differs from earlier in the input
	}
	for _, tt := range tests {
		_, err := s.Import(ctx, storetest.Feed(tt.input, nil), "importer")
		var ie *store.ImportError
		if !errors.As(err, &ie) || ie.Index != tt.index || ie.Key != tt.key || !errors.Is(err, store.ErrConflict) {
			t.Errorf("import %v: %v, want a conflict at %d (%s)", tt.input, err, tt.index, tt.key)
		}
	}
	got, err := s.Lookup(ctx, []string{z.Key, y.Key, x.Key})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != nil || got[1].Target != "/y" || got[2].Meta["who"] != "me" {
		t.Errorf("after the refused imports: %+v %+v %+v", got[0], got[1], got[2])
	}
	_, history, err := s.Get(ctx, x.Key)
	if err != nil || len(history) != 1 || history[0].By != "importer" || history[0].Old != nil || history[0].New.Target != "/x" {
		t.Errorf("history of an imported binding: %+v, %v", history, err)
	}
}

// TestPostgresConcurrentCreate: nodes creating one key at once (each its
// own connections): one wins, the others find it taken, and updates that
// race each count one version.
func TestPostgresConcurrentCreate(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	nodes := []*Backend{newNode(t, dsn), newNode(t, dsn), newNode(t, dsn), newNode(t, dsn)}
	ctx := context.Background()
	var created, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			_, err := nodes[i%len(nodes)].Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/race", Target: fmt.Sprint("/", i), Status: 302}, Create: true, By: "test"})
			switch {
			case err == nil:
				created.Add(1)
			case errors.Is(err, store.ErrPrecondition):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if created.Load() != 1 || refused.Load() != 15 {
		t.Fatalf("16 creates of one key: %d created, %d refused; want 1 and 15", created.Load(), refused.Load())
	}
	for i := range 16 {
		wg.Go(func() {
			if _, err := nodes[i%len(nodes)].Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/race", Target: "/u", Status: 302}, By: "test"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	b, history, err := nodes[0].Get(ctx, "ark:12345/race")
	if err != nil || b.Version != 17 || len(history) != 17 {
		t.Errorf("after 1 create and 16 updates: version %d, %d history records, %v; want 17 and 17", b.Version, len(history), err)
	}
}
