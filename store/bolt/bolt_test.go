package bolt

import (
	"path/filepath"
	"testing"

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
