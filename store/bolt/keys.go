package bolt

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// bucketAPIKeys holds the API keys made at runtime (store.KeyStore):
// hash (hexadecimal) → StoredKey (JSON). It is made by the first key; a
// file without it has none. Keys are few: finding one by name reads the
// bucket.
var bucketAPIKeys = []byte("apikeys")

// AddKey implements store.KeyStore.
func (b *boltDB) AddKey(_ context.Context, k store.StoredKey) error {
	v, err := json.Marshal(k)
	if err != nil {
		return err
	}
	return b.update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists(bucketAPIKeys)
		if err != nil {
			return err
		}
		if bk.Get([]byte(k.Hash)) != nil {
			return fmt.Errorf("key %s: %w: its secret is another key's", k.Name, store.ErrConflict)
		}
		h, _, err := keyNamed(bk, k.Name)
		if err != nil {
			return err
		}
		if h != nil {
			return fmt.Errorf("key %s: %w: a key has that name", k.Name, store.ErrConflict)
		}
		return bk.Put([]byte(k.Hash), v)
	})
}

// keyNamed returns the hash and the key called name in bk, nil when
// there is none.
func keyNamed(bk *bolt.Bucket, name string) ([]byte, *store.StoredKey, error) {
	c := bk.Cursor()
	for h, v := c.First(); h != nil; h, v = c.Next() {
		var k store.StoredKey
		if err := json.Unmarshal(v, &k); err != nil {
			return nil, nil, fmt.Errorf("API key %s: %w", h, err)
		}
		if k.Name == name {
			return h, &k, nil
		}
	}
	return nil, nil, nil
}

// KeyByHash implements store.KeyStore.
func (b *boltDB) KeyByHash(_ context.Context, hash string) (*store.StoredKey, error) {
	var k *store.StoredKey
	err := b.view(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketAPIKeys)
		if bk == nil {
			return store.ErrNotFound
		}
		v := bk.Get([]byte(hash))
		if v == nil {
			return store.ErrNotFound
		}
		k = new(store.StoredKey)
		return json.Unmarshal(v, k)
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

// Keys implements store.KeyStore.
func (b *boltDB) Keys(_ context.Context) ([]store.StoredKey, error) {
	var keys []store.StoredKey
	err := b.view(func(tx *bolt.Tx) error {
		var err error
		keys, err = allKeys(tx)
		return err
	})
	return keys, err
}

// allKeys returns the keys of tx in name order.
func allKeys(tx *bolt.Tx) ([]store.StoredKey, error) {
	bk := tx.Bucket(bucketAPIKeys)
	if bk == nil {
		return nil, nil
	}
	var keys []store.StoredKey
	err := bk.ForEach(func(_, v []byte) error {
		var k store.StoredKey
		if err := json.Unmarshal(v, &k); err != nil {
			return err
		}
		keys = append(keys, k)
		return nil
	})
	store.SortKeys(keys)
	return keys, err
}

// RevokeKey implements store.KeyStore.
func (b *boltDB) RevokeKey(_ context.Context, name string) error {
	return b.update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketAPIKeys)
		if bk == nil {
			return store.ErrNotFound
		}
		h, _, err := keyNamed(bk, name)
		if err != nil {
			return err
		}
		if h == nil {
			return store.ErrNotFound
		}
		return bk.Delete(h)
	})
}

// loadKey puts k, from a dump, in tx.
func loadKey(tx *bolt.Tx, k *store.StoredKey) error {
	bk, err := tx.CreateBucketIfNotExists(bucketAPIKeys)
	if err != nil {
		return err
	}
	if bk.Get([]byte(k.Hash)) != nil {
		return fmt.Errorf("key %s: %w: its hash is another key's in the dump", k.Name, store.ErrConflict)
	}
	v, err := json.Marshal(k)
	if err != nil {
		return err
	}
	return bk.Put([]byte(k.Hash), v)
}
