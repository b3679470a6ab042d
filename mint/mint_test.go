package mint_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
)

// minter compiles one minter of template under ark:12345/x5, with a
// bbolt store in a temporary directory and a table of entries.
func minter(t *testing.T, template string, entries ...table.Entry) (*mint.Compiled, store.Store, table.Table) {
	t.Helper()
	ms, err := mint.Compile([]mint.Minter{{Shoulder: "ark:/12345/x5", Template: template}})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.Load(nil, entries)
	if err != nil {
		t.Fatal(err)
	}
	s := testkit.Provision(t, &bolt.Store{Path: filepath.Join(t.TempDir(), "ark.db")})
	return ms.Find("ark:12345/x5"), s, tbl
}

// A sequential minter's names follow each other across calls, each stored
// as minted (status 0) under the name of who minted it, and names a table
// assigns are skipped.
func TestMintSequentialStoresEachName(t *testing.T) {
	m, s, tbl := minter(t, ".sdd", table.Entry{ID: "ark:12345/x503", Target: "https://example.org/"})
	ctx := context.Background()
	first, err := mint.Mint(ctx, m, s, tbl, 3, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	next, err := mint.Mint(ctx, m, s, tbl, 2, "bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ark:12345/x500", "ark:12345/x501", "ark:12345/x502"}; !slices.Equal(first, want) {
		t.Errorf("first call: %v, want %v", first, want)
	}
	if want := []string{"ark:12345/x504", "ark:12345/x505"}; !slices.Equal(next, want) {
		t.Errorf("second call: %v, want %v (x503 is the table's)", next, want)
	}
	b, _, err := s.Get(ctx, "ark:12345/x504")
	if err != nil {
		t.Fatal(err)
	}
	if b.State() != store.StateMinted || b.By != "bob" || b.Version != 1 {
		t.Errorf("x504 as stored: %+v, want minted by bob, version 1", b)
	}
}

// A bounded template runs out: a call for more names than are left is
// refused whole, with ErrSpaceExhausted, minting nothing; once the last
// name is minted, every call is refused so.
func TestMintRunsOut(t *testing.T) {
	m, s, tbl := minter(t, ".sd")
	ctx := context.Background()
	if keys, err := mint.Mint(ctx, m, s, tbl, 12, "alice", nil); !errors.Is(err, mint.ErrSpaceExhausted) || len(keys) != 0 {
		t.Fatalf("12 of 10 names: %v, %v; want none and ErrSpaceExhausted", keys, err)
	}
	if _, _, err := s.Get(ctx, "ark:12345/x50"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("x50 after a refused call: %v, want not stored", err)
	}
	if keys, err := mint.Mint(ctx, m, s, tbl, 10, "alice", nil); err != nil || len(keys) != 10 {
		t.Fatalf("10 of 10 names: %d, %v", len(keys), err)
	}
	if keys, err := mint.Mint(ctx, m, s, tbl, 1, "alice", nil); !errors.Is(err, mint.ErrSpaceExhausted) || len(keys) != 0 {
		t.Errorf("after the last name: %v, %v", keys, err)
	}
}

// A random minter's names are distinct, each with its check character,
// and all stored.
func TestMintRandomWithCheckCharacter(t *testing.T) {
	m, s, tbl := minter(t, ".rdek")
	ctx := context.Background()
	keys, err := mint.Mint(ctx, m, s, tbl, 50, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] || !strings.HasPrefix(k, "ark:12345/x5") || !mint.CheckMatches(strings.TrimPrefix(k, "ark:")) {
			t.Errorf("%s: repeated, off the shoulder, or a wrong check character", k)
		}
		seen[k] = true
		if _, _, err := s.Get(ctx, k); err != nil {
			t.Errorf("%s: not stored: %v", k, err)
		}
	}
	if len(keys) != 50 {
		t.Errorf("%d names, want 50", len(keys))
	}
}

// With bind, each name is stored bound; when bind refuses a name, nothing
// of that call is stored.
func TestMintAndBind(t *testing.T) {
	m, s, tbl := minter(t, ".sdd")
	ctx := context.Background()
	keys, err := mint.Mint(ctx, m, s, tbl, 2, "alice", func(key string) (store.Binding, error) {
		return store.Binding{Target: "https://example.org/" + strings.TrimPrefix(key, "ark:12345/"), Status: http.StatusFound}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		b, _, err := s.Get(ctx, k)
		if err != nil || b.State() != store.StateBound || b.Target != "https://example.org/"+strings.TrimPrefix(k, "ark:12345/") {
			t.Errorf("%s: %+v, %v; want bound to its own target", k, b, err)
		}
	}
	refused := errors.New("no")
	keys, err = mint.Mint(ctx, m, s, tbl, 2, "alice", func(string) (store.Binding, error) { return store.Binding{}, refused })
	if !errors.Is(err, refused) || len(keys) != 0 {
		t.Fatalf("refused bind: %v, %v", keys, err)
	}
	if _, _, err := s.Get(ctx, "ark:12345/x502"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("x502 after a refused bind: %v, want not stored", err)
	}
}
