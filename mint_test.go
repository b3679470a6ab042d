package ark

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/mint"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// mintHandler is a handler with the bolt store at a new file and minters.
func mintHandler(t testing.TB, tables []string, ms ...mint.Minter) *Handler {
	t.Helper()
	path := filepath.Join(t.TempDir(), "store.db")
	return testkit.Provision(t, &Handler{NAANs: []string{"12345"}, Tables: tables, Minters: ms,
		StoreRaw: []byte(`{"backend":"bolt","path":"` + path + `"}`)})
}

func TestMintSequential(t *testing.T) {
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/q02", Target: "https://example.org/taken-by-the-table"}})
	h := mintHandler(t, []string{tablePath}, mint.Minter{Shoulder: "ark:/12345/q", Template: ".sdd"})
	ctx := context.Background()
	keys, err := h.Mint(ctx, "ark:12345/q", 5, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	// q02 is the table's: skipped, never minted.
	if want := "ark:12345/q00 ark:12345/q01 ark:12345/q03 ark:12345/q04 ark:12345/q05"; strings.Join(keys, " ") != want {
		t.Errorf("minted %v, want %s", keys, want)
	}
	if _, err := h.Store().Apply(ctx, store.Write{Binding: store.Binding{Key: "ark:12345/q06", Target: "https://example.org/6", Status: 302}, By: "bob"}); err != nil {
		t.Fatal(err)
	}
	bound := func(key string) (store.Binding, error) {
		return store.Binding{Target: "https://example.org/objects/" + strings.TrimPrefix(key, "ark:12345/"), Status: 302}, nil
	}
	keys, err = h.Mint(ctx, "ark:12345/q", 2, "alice", bound)
	if err != nil || strings.Join(keys, " ") != "ark:12345/q07 ark:12345/q08" {
		t.Fatalf("minted %v, %v; want q07 q08 (q06 was bound already)", keys, err)
	}
	got, hist, err := h.Store().Get(ctx, "ark:12345/q07")
	if err != nil || got.Target != "https://example.org/objects/q07" || got.Status != 302 || len(hist) != 1 || hist[0].By != "alice" {
		t.Errorf("mint-and-bind stored %+v, %+v, %v", got, hist, err)
	}
	// 100 names: 91 are left (q09 to q99).
	if _, err := h.Mint(ctx, "ark:12345/q", 92, "alice", nil); !errors.Is(err, mint.ErrSpaceExhausted) {
		t.Errorf("asking for more names than are left: %v, want ErrSpaceExhausted", err)
	}
	if keys, err = h.Mint(ctx, "ark:12345/q", 91, "alice", nil); err != nil || keys[90] != "ark:12345/q99" {
		t.Fatalf("the last 91 names: %v, %v", len(keys), err)
	}
	if _, err := h.Mint(ctx, "ark:12345/q", 1, "alice", nil); !errors.Is(err, mint.ErrSpaceExhausted) {
		t.Errorf("minting from a full template: %v, want ErrSpaceExhausted", err)
	}
	for _, n := range []int{0, -1, mint.MintMax + 1} {
		if _, err := h.Mint(ctx, "ark:12345/q", n, "alice", nil); !errors.Is(err, mint.ErrMintCount) {
			t.Errorf("Mint of %d names: %v, want ErrMintCount", n, err)
		}
	}
	if _, err := h.Mint(ctx, "ark:12345/zz", 1, "alice", nil); !errors.Is(err, mint.ErrNoMinter) {
		t.Errorf("Mint under a shoulder without a minter: %v, want ErrNoMinter", err)
	}
}

func TestMintRandom(t *testing.T) {
	h := mintHandler(t, nil, mint.Minter{Shoulder: "ark:12345/r", Template: ".rdk"}, mint.Minter{Shoulder: "ark:12345/x5", Template: ".reeddeedk"})
	ctx := context.Background()
	keys, err := h.Mint(ctx, "ark:12345/r", 10, "alice", nil)
	if err != nil {
		t.Fatalf("all 10 names of .rdk: %v, %v", keys, err)
	}
	seen := map[string]bool{}
	for _, k := range keys {
		name := strings.TrimPrefix(k, "ark:")
		if seen[k] || len(name) != len("12345/r0c") || !mint.CheckMatches(name) {
			t.Errorf("minted %q: a repeat, the wrong shape or a wrong check character", k)
		}
		seen[k] = true
	}
	if _, err := h.Mint(ctx, "ark:12345/r", 1, "alice", nil); !errors.Is(err, mint.ErrSpaceExhausted) {
		t.Errorf("an 11th name of .rdk: %v, want ErrSpaceExhausted", err)
	}
	keys, err = h.Mint(ctx, "ark:12345/x5", mint.MintMax, "alice", nil)
	if err != nil || len(keys) != mint.MintMax {
		t.Fatalf("%d names of .reeddeedk: %d, %v", mint.MintMax, len(keys), err)
	}
	for _, k := range keys {
		if name := strings.TrimPrefix(k, "ark:"); len(name) != len("12345/x5")+8 || !mint.CheckMatches(name) {
			t.Errorf("minted %q: the wrong shape or check character", k)
		}
	}
}

// TestMintConcurrent: minters running at once never get the same name.
func TestMintConcurrent(t *testing.T) {
	h := mintHandler(t, nil, mint.Minter{Shoulder: "ark:12345/s", Template: ".zd"}, mint.Minter{Shoulder: "ark:12345/r", Template: ".rddd"})
	ctx := context.Background()
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			shoulder := []string{"ark:12345/s", "ark:12345/r"}[i%2]
			keys, err := h.Mint(ctx, shoulder, 20, "k", nil)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			for _, k := range keys {
				seen[k]++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(seen) != 800 {
		t.Errorf("%d distinct names from 40 mints of 20", len(seen))
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("%s minted %d times", k, n)
		}
	}
}

func TestTableSource(t *testing.T) {
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/a", Target: "/a"}, {ID: "ark:/12345/b-1", Target: "/b"}})
	h := testkit.Provision(t, &Handler{Tables: []string{tablePath}, Entries: []table.Entry{{ID: "ark:12345/c", Target: "/c", Source: "Caddyfile:7"}}})
	for key, want := range map[string]string{
		"ark:12345/b1": tablePath + " entry 1",
		"ark:12345/c":  "the map at Caddyfile:7",
	} {
		if got, ok := h.TableSource(key); !ok || got != want {
			t.Errorf("TableSource(%s) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if got, ok := h.TableSource("ark:12345/d"); ok {
		t.Errorf("TableSource of a key no table assigns = %q", got)
	}
}
