package bolt

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddyserver/caddy/v2"
	bolt "go.etcd.io/bbolt"
)

// A store file whose branch pages point outside the file makes bbolt read
// memory that is not mapped: a fault, which Go makes a fatal error that
// ends the process unless the goroutine asked for a panic instead. Opened
// so, even with skip_check, the file is refused as damaged, since its
// bindings are read at open. Damaged so while open, reads and writes (the
// writes through bbolt's batch goroutine) answer ErrUnavailable, and the
// process goes on.
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
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := pointBranchesAway(t, path); n == 0 {
		t.Fatal("the store file has no branch page to damage")
	}
	for _, skip := range []bool{false, true} {
		err := (&Store{Path: path, SkipCheck: skip}).Provision(caddy.Context{})
		if err == nil || !strings.Contains(err.Error(), "the file is damaged") || !strings.Contains(err.Error(), path) {
			t.Errorf("opening a file whose pages point outside it, skip_check %v: %v; want it refused as damaged, naming it", skip, err)
		}
	}
	for _, first := range []string{"write", "read"} {
		t.Run(first+" first", func(t *testing.T) {
			if err := os.WriteFile(path, good, 0o600); err != nil {
				t.Fatal(err)
			}
			s := &Store{Path: path, SkipCheck: true}
			if err := s.Provision(caddy.Context{}); err != nil {
				t.Fatal(err)
			}
			defer s.Cleanup()
			if n := pointBranchesAway(t, path); n == 0 {
				t.Fatal("the store file has no branch page to damage")
			}
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
// outside any mapping, where a read faults. It writes the file in place,
// as a failing disk does, so that a process that has it open and mapped
// reads the damage. It returns how many branch pages it changed.
func pointBranchesAway(t *testing.T, path string) int {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	// bbolt's page header: id (8 bytes), flags (2), count (2), overflow
	// (4); a branch element: pos, ksize (4 bytes each), pgid (8). The
	// meta page's page size follows its header's magic and version.
	const header, element, branchFlag = 16, 16, 0x01
	pageSize := int(binary.LittleEndian.Uint32(data[header+8:]))
	away := uint64(1<<47) / uint64(pageSize)
	branches := 0
	for id := 2; (id+1)*pageSize <= len(data); {
		p := data[id*pageSize : (id+1)*pageSize]
		if binary.LittleEndian.Uint64(p) != uint64(id) {
			id++
			continue
		}
		if binary.LittleEndian.Uint16(p[8:])&branchFlag != 0 {
			for i := range int(binary.LittleEndian.Uint16(p[10:])) {
				binary.LittleEndian.PutUint64(p[header+i*element+8:], away)
			}
			if _, err := f.WriteAt(p, int64(id*pageSize)); err != nil {
				t.Fatal(err)
			}
			branches++
		}
		id += 1 + int(binary.LittleEndian.Uint32(p[12:]))
	}
	return branches
}
