package caddytest

import (
	"context"
	"testing"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddyserver/caddy/v2"
)

// StoreAsBefore writes bindings into the bolt store at db, made if need
// be, as a version that did not check their targets did, by the editor.
func StoreAsBefore(t *testing.T, db string, bindings ...store.Binding) {
	t.Helper()
	st := &bolt.Store{Path: db}
	if err := st.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	for _, b := range bindings {
		if _, err := st.Apply(context.Background(), store.Write{Binding: b, By: "editor"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Cleanup(); err != nil {
		t.Fatal(err)
	}
}

// StoreKeysAsBefore writes keys into the bolt store at db, made if need
// be, as a version whose rules for keys were looser made them.
func StoreKeysAsBefore(t *testing.T, db string, keys ...store.StoredKey) {
	t.Helper()
	st := &bolt.Store{Path: db}
	if err := st.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if err := st.AddKey(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Cleanup(); err != nil {
		t.Fatal(err)
	}
}
