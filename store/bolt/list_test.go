package bolt

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// A file from before the state index gets it when it opens, from its
// bindings.
func TestBoltListIndexesAnOldFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s := openBoltStore(t, path)
	for _, b := range []store.Binding{
		{Key: "ark:12345/a", Target: "https://example.org/a", Status: 302},
		{Key: "ark:12345/c", Status: 410, Reason: "gone"},
	} {
		if _, err := s.Apply(ctx, store.Write{Binding: b, By: "k"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Reserve(ctx, []store.Binding{{Key: "ark:12345/b"}}, "minter"); err != nil {
		t.Fatal(err)
	}
	if err := s.DB().Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketStates) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Cleanup(); err != nil {
		t.Fatal(err)
	}
	s = openBoltStore(t, path)
	for st, want := range map[store.State][]string{
		store.StateBound:     {"ark:12345/a"},
		store.StateMinted:    {"ark:12345/b"},
		store.StateWithdrawn: {"ark:12345/c"},
	} {
		var got []string
		if err := s.List(ctx, store.ListQuery{State: st}, func(b *store.Binding) error {
			got = append(got, b.Key)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("List(%s) in a reopened old file: %v, want %v", st, got, want)
		}
	}
}
