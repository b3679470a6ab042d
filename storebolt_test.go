package ark

import (
	"path/filepath"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

func TestBoltStore(t *testing.T) {
	runStoreSuite(t, func(t *testing.T) Store {
		return openBoltStore(t, filepath.Join(t.TempDir(), "store.db"))
	}, func(t *testing.T, s Store) Store {
		bs := s.(*BoltStore)
		path := bs.Path
		if err := bs.Cleanup(); err != nil {
			t.Fatal(err)
		}
		return openBoltStore(t, path)
	})
}

// openBoltStore provisions a BoltStore on path, cleaned up when t ends.
func openBoltStore(t *testing.T, path string) *BoltStore {
	t.Helper()
	s := &BoltStore{Path: path}
	if err := s.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Cleanup() })
	return s
}
