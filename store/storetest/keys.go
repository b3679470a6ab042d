package storetest

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
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

	t.Run("A dump carries the keys, hashed, into the store it loads", func(t *testing.T) {
		s := open(t)
		MustApply(t, s, store.Write{Binding: store.Binding{Key: "ark:12345/k", Target: "/k", Status: 200}, By: "curator"})
		for _, k := range []store.StoredKey{vendor, curator} {
			if err := s.AddKey(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		var dump bytes.Buffer
		counts, err := store.WriteDump(ctx, s, &dump)
		if err != nil || counts.Keys != 2 {
			t.Fatalf("WriteDump: %v, %v; want 2 keys", counts, err)
		}
		moved := open(t)
		if _, err := store.ReadDump(ctx, moved, bytes.NewReader(dump.Bytes())); err != nil {
			t.Fatalf("ReadDump: %v", err)
		}
		got, err := moved.KeyByHash(ctx, curator.Hash)
		if err != nil || !reflect.DeepEqual(*got, curator) {
			t.Errorf("the loaded store's curator: %+v, %v; want %+v", got, err, curator)
		}
		var again bytes.Buffer
		if _, err := store.WriteDump(ctx, moved, &again); err != nil || again.String() != dump.String() {
			t.Errorf("the loaded store dumps otherwise (%v):\n%s\nwant:\n%s", err, again.String(), dump.String())
		}

		var v1 bytes.Buffer
		if _, _, err := store.WriteDumpNoStats(ctx, s, &v1, false); err != nil || strings.Contains(v1.String(), curator.Hash) || strings.Contains(v1.String(), `"key"`) {
			t.Errorf("a dump of version 1 (%v) holds the keys:\n%s", err, v1.String())
		}

		onlyKeys := open(t)
		if err := onlyKeys.AddKey(ctx, vendor); err != nil {
			t.Fatal(err)
		}
		if _, err := store.ReadDump(ctx, onlyKeys, bytes.NewReader(dump.Bytes())); !errors.Is(err, store.ErrNotEmpty) {
			t.Errorf("loading into a store holding only a key: %v, want ErrNotEmpty", err)
		}
	})

	t.Run("A store without keys dumps no key lines", func(t *testing.T) {
		s := open(t)
		MustApply(t, s, store.Write{Binding: store.Binding{Key: "ark:12345/k", Target: "/k", Status: 200}, By: "curator"})
		var dump bytes.Buffer
		if _, err := store.WriteDump(ctx, s, &dump); err != nil || strings.Contains(dump.String(), `"key`) {
			t.Errorf("the dump (%v) speaks of keys:\n%s", err, dump.String())
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
