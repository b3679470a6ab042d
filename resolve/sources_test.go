package resolve_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/localcopy"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// eachOnly is a store that can only be read whole.
type eachOnly struct{ s store.Store }

func (e eachOnly) Each(ctx context.Context, fn func(*store.Binding) error) error {
	return e.s.Each(ctx, fn)
}

// failsWhole is a store whose reading whole fails, and which looks keys
// up: a check that reads it whole fails.
type failsWhole struct{ store.Store }

func (failsWhole) Each(context.Context, func(*store.Binding) error) error {
	return errors.New("read whole")
}

// A small table is checked by looking its keys up in the store, a batch
// at a time, not by reading the store whole: a configuration starts, and
// a table is swapped in, at once with a store of millions.
func TestNewChecksASmallTableByItsKeys(t *testing.T) {
	s := openStore(t, store.Binding{Key: "ark:12345/bound", Target: "https://store.example.org/", Status: http.StatusFound})
	tbl, err := table.Load(nil, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/"}})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Store: failsWhole{s}, MaxLength: 1024})
	if err != nil {
		t.Fatalf("a table of one key, beside a store that cannot be read whole: %v", err)
	}
	rs.Close()
	both, err := table.Load(nil, []table.Entry{{ID: "ark:12345/bound", Target: "https://table.example.org/"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resolve.New(resolve.Options{Table: both, NAANs: []string{"12345"}, Store: failsWhole{s}, MaxLength: 1024}); err == nil || !strings.Contains(err.Error(), "ark:12345/bound is bound in the store") {
		t.Errorf("a table assigning what the store binds: %v, want a conflict", err)
	}
	// A table of several batches of keys: a conflict in each is named.
	var entries []table.Entry
	for i := range 1200 {
		entries = append(entries, table.Entry{ID: fmt.Sprintf("ark:12345/k%d", i), Target: "https://table.example.org/"})
	}
	many, err := table.Load(nil, entries)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 499, 500, 1199} {
		if _, err := s.Apply(context.Background(), store.Write{Binding: store.Binding{Key: fmt.Sprintf("ark:12345/k%d", i), Target: "https://store.example.org/", Status: http.StatusFound}, By: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = resolve.New(resolve.Options{Table: many, NAANs: []string{"12345"}, Store: failsWhole{s}, MaxLength: 1024})
	var conflict *resolve.SourceConflictError
	if !errors.As(err, &conflict) || len(conflict.Conflicts) != 4 {
		t.Fatalf("a table of 1,200 keys, four of them bound in the store: %v, want four conflicts", err)
	}
	for _, i := range []int{0, 499, 500, 1199} {
		if key := fmt.Sprintf("ark:12345/k%d is bound in the store", i); !strings.Contains(err.Error(), key) {
			t.Errorf("the conflicts do not name %q: %v", key, err)
		}
	}
}

// A store read through a local copy is checked by asking the store, not
// the copy, which may be behind it: here the copy of a store restored
// from a backup older than the copy, whose next change took a sequence
// number the copy has read already (the copy finds out only at its next
// checks of the store's history). The check goes by what the store holds.
func TestCheckSourcesAsksTheStoreNotItsCopy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, store.Binding{Key: "ark:12345/a", Target: "https://store.example.org/a", Status: http.StatusFound})
	older := filepath.Join(dir, "older.db")
	backUp(t, s, older)
	bindKey(t, s, "ark:12345/incopy")
	copyDir := filepath.Join(dir, "copy")
	c, err := localcopy.Open(copyDir, s, localcopy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.CatchUp(waitCtx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	restored := testkit.Provision(t, &bolt.Store{Path: older})
	bindKey(t, restored, "ark:12345/instore")
	c, err = localcopy.Open(copyDir, restored, localcopy.Options{Poll: time.Hour, RestoreCheck: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	testkit.WaitFor(t, "the copy on disk to serve", c.Serving)
	read := localcopy.Wrap(restored, c)
	got, err := read.Lookup(ctx, []string{"ark:12345/instore", "ark:12345/incopy"})
	if err != nil || got[0] != nil || got[1] == nil {
		t.Fatalf("the copy is not behind the store as this test needs: %v, %v", got, err)
	}

	inStore, err := table.Load(nil, []table.Entry{{ID: "ark:12345/instore", Target: "https://table.example.org/"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resolve.New(resolve.Options{Table: inStore, NAANs: []string{"12345"}, Store: read, MaxLength: 1024}); err == nil || !strings.Contains(err.Error(), "ark:12345/instore is bound in the store") {
		t.Errorf("a table assigning what the store binds and its copy does not know yet: %v, want a conflict", err)
	}
	inCopy, err := table.Load(nil, []table.Entry{{ID: "ark:12345/incopy", Target: "https://table.example.org/"}})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := resolve.New(resolve.Options{Table: inCopy, NAANs: []string{"12345"}, Store: read, MaxLength: 1024})
	if err != nil {
		t.Fatalf("a table assigning what only the copy holds, not the store: %v", err)
	}
	rs.Close()
}

// backUp writes a backup of s to path.
func backUp(t *testing.T, s store.Store, path string) {
	t.Helper()
	r, _, err := s.(store.Backuper).Backup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, r); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// bindKey binds key in s.
func bindKey(t *testing.T, s store.Store, key string) {
	t.Helper()
	if _, err := s.Apply(context.Background(), store.Write{Binding: store.Binding{Key: key, Target: "https://store.example.org/", Status: http.StatusFound}, By: "test"}); err != nil {
		t.Fatal(err)
	}
}

// A store that cannot be reached when a resolver is built (its
// PostgreSQL server is down) is no error: the table is loaded unchecked,
// and the resolver says why, whether the table is small enough to be
// checked by its keys or large enough to be checked by reading the store.
func TestNewLoadsUncheckedWhileTheStoreIsDown(t *testing.T) {
	pg := testkit.StartPostgres(t)
	dsn := pg.CreateDB(t)
	s := testkit.Provision(t, &postgres.Store{DSN: dsn, Timeout: caddy.Duration(2 * time.Second)})
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	small := []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/"}}
	var large []table.Entry
	for i := range 100_001 {
		large = append(large, table.Entry{ID: fmt.Sprintf("ark:12345/l%d", i), Target: "https://table.example.org/"})
	}
	for name, entries := range map[string][]table.Entry{"small": small, "large": large} {
		tbl, err := table.Load(nil, entries)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Store: s, MaxLength: 1024})
		if err != nil {
			t.Errorf("%s table, the store down: %v, want it loaded unchecked", name, err)
			continue
		}
		if err := rs.Unchecked(); !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s table, the store down: Unchecked says %v, want the store unavailable", name, err)
		}
		rs.Close()
	}
}

// A compiled table damaged past its check at open (a record's key) ends
// its entries at the damage: checked by its keys, it is refused as
// damaged rather than passed with the keys after the damage unchecked.
func TestCheckSourcesRefusesATableItCannotReadWhole(t *testing.T) {
	out := filepath.Join(t.TempDir(), "table.arkt")
	if _, err := table.Compile([]string{testkit.WriteFile(t, "src.json", testkit.EveryField)}, out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	arenaOff := int(table.CompiledHeaderSize + 16*table.CompiledSlotSize + 9*table.CompiledRecordSize)
	data[arenaOff+3] ^= 0x20 // in the first record's key
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ct, err := table.OpenCompiled(out, false)
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t, store.Binding{Key: "ark:12345/bound", Target: "https://store.example.org/", Status: http.StatusFound})
	if err := resolve.CheckSources(context.Background(), ct, s); !errors.Is(err, table.ErrDamaged) {
		t.Errorf("a damaged table checked by its keys: %v, want it refused as damaged", err)
	}
}

// A table of more than smallTable keys beside a store that holds at least
// twice as many bindings is checked by its keys too, on both backends:
// each says about how many bindings it holds (bbolt from its pages,
// PostgreSQL from its planner's statistics, which a large import
// refreshes), and such a configuration starts without reading the store
// whole. Beside a smaller store the same table is checked by reading the
// store, and names the same conflicts.
func TestNewChecksALargeTableByItsKeysBesideALargerStore(t *testing.T) {
	const tableKeys = 100_001
	bound := []string{storetest.Key(7), storetest.Key(500)}
	entries := make([]table.Entry, 0, tableKeys)
	for i := range tableKeys - len(bound) {
		entries = append(entries, table.Entry{ID: fmt.Sprintf("ark:12345/l%d", i), Target: "https://table.example.org/"})
	}
	for _, k := range bound {
		entries = append(entries, table.Entry{ID: k, Target: "https://table.example.org/"})
	}
	tbl, err := table.Load(nil, entries)
	if err != nil {
		t.Fatal(err)
	}
	wantConflicts := func(t *testing.T, what string, err error) {
		t.Helper()
		var conflict *resolve.SourceConflictError
		if !errors.As(err, &conflict) || len(conflict.Conflicts) != len(bound) {
			t.Fatalf("%s: %v, want %d conflicts", what, err, len(bound))
		}
		for _, k := range bound {
			if !strings.Contains(err.Error(), k+" is bound in the store") {
				t.Errorf("%s: the conflicts do not name %s: %v", what, k, err)
			}
		}
	}
	for name, open := range map[string]func(t *testing.T) store.Store{
		"bolt": func(t *testing.T) store.Store {
			return testkit.Provision(t, &bolt.Store{Path: filepath.Join(t.TempDir(), "ark.db"), SkipCheck: true})
		},
		"postgres": func(t *testing.T) store.Store {
			return testkit.Provision(t, &postgres.Store{DSN: testkit.SharedPostgres(t).CreateDB(t), Timeout: caddy.Duration(10 * time.Second)})
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			larger := open(t)
			if _, err := larger.Import(ctx, storetest.Bindings(2*tableKeys+10_000), "test"); err != nil {
				t.Fatal(err)
			}
			_, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Store: failsWhole{larger}, MaxLength: 1024})
			wantConflicts(t, "beside a store of twice its keys that cannot be read whole", err)

			smaller := open(t)
			if _, err := smaller.Import(ctx, storetest.Bindings(1000), "test"); err != nil {
				t.Fatal(err)
			}
			if _, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Store: failsWhole{smaller}, MaxLength: 1024}); err == nil || !strings.Contains(err.Error(), "read whole") {
				t.Errorf("beside a store of 1,000 bindings: %v, want the store read whole", err)
			}
			_, err = resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, Store: smaller, MaxLength: 1024})
			wantConflicts(t, "beside a store of 1,000 bindings", err)
		})
	}
}

// lookupsTimeOut is a store whose lookups fail as when a batch outlasts
// the store's timeout, and which can be read whole.
type lookupsTimeOut struct{ store.Store }

func (lookupsTimeOut) Lookup(context.Context, []string) ([]*store.Binding, error) {
	return nil, fmt.Errorf("%w: the lookup outlasted the timeout", store.ErrUnavailable)
}

// A table checked by its keys whose lookups the store does not answer in
// time is checked by reading the store whole, which no timeout bounds,
// rather than loaded unchecked.
func TestCheckByKeysTimingOutReadsTheStoreWhole(t *testing.T) {
	s := openStore(t, store.Binding{Key: "ark:12345/bound", Target: "https://store.example.org/", Status: http.StatusFound})
	both, err := table.Load(nil, []table.Entry{{ID: "ark:12345/bound", Target: "https://table.example.org/"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resolve.New(resolve.Options{Table: both, NAANs: []string{"12345"}, Store: lookupsTimeOut{s}, MaxLength: 1024}); err == nil || !strings.Contains(err.Error(), "ark:12345/bound is bound in the store") {
		t.Errorf("a table assigning what the store binds, its lookups timing out: %v, want a conflict", err)
	}
}
