package bolt

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	bolt "go.etcd.io/bbolt"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/storetest"
	"github.com/caddyserver/caddy/v2"
)

func TestBoltStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return openBoltStore(t, filepath.Join(t.TempDir(), "store.db"))
	}, func(t *testing.T, s store.Store) store.Store {
		bs := s.(*Store)
		path := bs.Path
		if err := bs.Cleanup(); err != nil {
			t.Fatal(err)
		}
		return openBoltStore(t, path)
	})
}

// openBoltStore provisions a BoltStore on path, cleaned up when t ends.
func openBoltStore(t *testing.T, path string) *Store {
	t.Helper()
	s := &Store{Path: path}
	if err := s.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Cleanup() })
	return s
}

// An import that a stopped process left staging is dropped when the file
// opens again; one it committed is seen at once and merged.
func TestBoltImportLeftByAStoppedProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openBoltStore(t, path)
	stageOnly := func(n int, seed uint64) *importRun {
		run, err := s.beginImport()
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.stage(ctx, run, storetest.Shuffled(n, seed), "importer"); err != nil {
			t.Fatal(err)
		}
		return run
	}
	stageOnly(500, 1) // never committed
	committed := stageOnly(300, 2)
	if _, err := s.commitImport(committed, 300); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		n := 0
		if err := s.Each(ctx, func(*store.Binding) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := count(); got != 300 {
		t.Fatalf("committed, not merged: Each sees %d bindings, want 300", got)
	}
	if err := s.Cleanup(); err != nil {
		t.Fatal(err)
	}
	s = openBoltStore(t, path)
	testkit.WaitFor(t, "the merger", func() bool {
		left := 0
		_ = s.db.View(func(tx *bolt.Tx) error {
			left = tx.Bucket(bucketImports).Stats().KeyN + tx.Bucket(bucketStaged).Stats().BucketN - 1 + tx.Bucket(bucketRuns).Stats().BucketN - 1
			return nil
		})
		return left == 0
	})
	if got := count(); got != 300 {
		t.Errorf("reopened: %d bindings, want the 300 committed", got)
	}
	_, hist, err := s.Get(ctx, storetest.Key(299))
	if err != nil || len(hist) != 1 {
		t.Errorf("a merged binding's history: %+v, %v", hist, err)
	}
}
