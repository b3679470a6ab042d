package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// runKeys checks store.KeyStore: keys added are found by hash and
// listed by name, across a restart; a name or hash taken twice is a
// conflict; a revoked key is gone at once and its name free again.
func runKeys(t *testing.T, open func(t *testing.T) store.Store, reopen func(t *testing.T, s store.Store) store.Store) {
	ctx := context.Background()
	created := time.Date(2026, 11, 28, 12, 0, 0, 123456000, time.UTC)
	curator := store.StoredKey{
		Name: "curator", Hash: "aa" + hex62('1'), Scopes: []string{"write:ark:12345/x5", "read:ark:12345"},
		Label: "the curators' scanner", Expires: created.Add(24 * time.Hour), Created: created, CreatedBy: "admin",
	}
	vendor := store.StoredKey{Name: "vendor", Hash: "bb" + hex62('2'), Scopes: []string{"read:*"}, Created: created, CreatedBy: "admin"}

	t.Run("Keys are found by hash and listed by name, after a restart too", func(t *testing.T) {
		s := open(t)
		if got, err := s.Keys(ctx); err != nil || len(got) != 0 {
			t.Fatalf("a new store's keys: %v, %v; want none", got, err)
		}
		if _, err := s.KeyByHash(ctx, curator.Hash); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("KeyByHash in a new store: %v, want ErrNotFound", err)
		}
		for _, k := range []store.StoredKey{vendor, curator} {
			if err := s.AddKey(ctx, k); err != nil {
				t.Fatalf("AddKey(%s): %v", k.Name, err)
			}
		}
		s = reopen(t, s)
		got, err := s.KeyByHash(ctx, curator.Hash)
		if err != nil || !reflect.DeepEqual(*got, curator) {
			t.Fatalf("KeyByHash(curator) = %+v, %v; want %+v", got, err, curator)
		}
		list, err := s.Keys(ctx)
		if err != nil || !reflect.DeepEqual(list, []store.StoredKey{curator, vendor}) {
			t.Fatalf("Keys = %+v, %v; want curator, then vendor", list, err)
		}
		if !list[1].Expires.IsZero() {
			t.Errorf("vendor, without an expiry, reads back expiring at %v", list[1].Expires)
		}
	})

	t.Run("A name or a hash taken twice is a conflict", func(t *testing.T) {
		s := open(t)
		if err := s.AddKey(ctx, curator); err != nil {
			t.Fatal(err)
		}
		sameName := vendor
		sameName.Name = curator.Name
		sameHash := vendor
		sameHash.Hash = curator.Hash
		for _, k := range []store.StoredKey{sameName, sameHash} {
			if err := s.AddKey(ctx, k); !errors.Is(err, store.ErrConflict) {
				t.Errorf("AddKey(%s, %s…): %v, want ErrConflict", k.Name, k.Hash[:4], err)
			}
		}
		if list, err := s.Keys(ctx); err != nil || len(list) != 1 {
			t.Errorf("after the refusals, Keys = %+v, %v; want curator only", list, err)
		}
	})

	t.Run("A revoked key is gone at once, its name free again", func(t *testing.T) {
		s := open(t)
		for _, k := range []store.StoredKey{vendor, curator} {
			if err := s.AddKey(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.RevokeKey(ctx, "curator"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.KeyByHash(ctx, curator.Hash); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("KeyByHash of a revoked key: %v, want ErrNotFound", err)
		}
		if err := s.RevokeKey(ctx, "curator"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("revoking twice: %v, want ErrNotFound", err)
		}
		if list, err := s.Keys(ctx); err != nil || len(list) != 1 || list[0].Name != "vendor" {
			t.Errorf("Keys after revoking curator = %+v, %v; want vendor", list, err)
		}
		again := curator
		again.Hash = "cc" + hex62('3')
		if err := s.AddKey(ctx, again); err != nil {
			t.Errorf("a new key under a revoked key's name: %v", err)
		}
	})
}

// hex62 is 62 hexadecimal digits d.
func hex62(d byte) string {
	b := make([]byte, 62)
	for i := range b {
		b[i] = d
	}
	return string(b)
}
