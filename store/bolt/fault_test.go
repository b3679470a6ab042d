package bolt

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddyserver/caddy/v2"
	bolt "go.etcd.io/bbolt"
)

// A store file whose branch pages point outside the file, opened with
// skip_check, makes bbolt read memory that is not mapped: a fault, which
// Go makes a fatal error that ends the process unless the goroutine asked
// for a panic instead. Reads and writes (the writes through bbolt's
// batch goroutine) answer ErrUnavailable, and the process goes on.
func TestBoltFaultOnADamagedPageIsUnavailable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openBoltStore(t, path)
	if _, err := s.Import(ctx, storetest.Bindings(3000), "importer"); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the merger", func() bool {
		left := 1
		_ = s.db.View(func(tx *bolt.Tx) error {
			left = tx.Bucket(bucketImports).Stats().KeyN
			return nil
		})
		return left == 0
	})
	if err := s.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if n := pointBranchesAway(t, path); n == 0 {
		t.Fatal("the store file has no branch page to damage")
	}
	for _, first := range []string{"write", "read"} {
		t.Run(first+" first", func(t *testing.T) {
			s := &Store{Path: path, SkipCheck: true}
			if err := s.Provision(caddy.Context{}); err != nil {
				t.Fatal(err)
			}
			defer s.Cleanup()
			write := func() error {
				_, err := s.Apply(ctx, store.Write{Binding: store.Binding{Key: storetest.Key(5), Target: "https://elsewhere.example.org/", Status: 302}})
				return err
			}
			read := func() error {
				_, err := s.Lookup(ctx, []string{storetest.Key(7)})
				return err
			}
			calls := []func() error{write, read}
			if first == "read" {
				calls = []func() error{read, write}
			}
			for i, call := range calls {
				if err := call(); !errors.Is(err, store.ErrUnavailable) {
					t.Errorf("call %d on a file whose pages point outside it: %v; want ErrUnavailable", i, err)
				}
			}
		})
	}
}

// pointBranchesAway makes every element of every branch page of the
// bbolt file at path point to a page 2^47 bytes past the file's start:
// outside any mapping, where a read faults. It returns how many branch
// pages it changed.
func pointBranchesAway(t *testing.T, path string) int {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	pageSize := db.Info().PageSize
	var branches []int
	err = db.View(func(tx *bolt.Tx) error {
		for id := 2; ; id++ {
			p, err := tx.Page(id)
			if err != nil || p == nil {
				return err
			}
			if p.Type == "branch" {
				branches = append(branches, id)
			}
		}
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const header, element = 16, 16 // bbolt's page header; a branch element: pos, ksize (4 bytes each), pgid (8)
	away := uint64(1<<47) / uint64(pageSize)
	for _, id := range branches {
		p := data[id*pageSize:]
		for i := range int(binary.LittleEndian.Uint16(p[10:])) {
			binary.LittleEndian.PutUint64(p[header+i*element+8:], away)
		}
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return len(branches)
}
