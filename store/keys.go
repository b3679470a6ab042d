package store

import (
	"context"
	"slices"
	"strings"
	"time"
)

// KeyStore holds API keys made at runtime, besides those of the
// configuration: an admin makes and revokes them through the API, and
// every node sharing the store sees them at once, since the API reads a
// key from the store each time it is used. Only the SHA-256 hash of a
// key's secret is kept. Both backends implement it.
type KeyStore interface {
	// AddKey stores k. It refuses with ErrConflict when a key of the
	// same name or the same hash is there already (a revoked key's name
	// may be used again).
	AddKey(ctx context.Context, k StoredKey) error

	// KeyByHash returns the key whose hash is hash (64 lowercase
	// hexadecimal digits), expired or not; ErrNotFound when there is
	// none.
	KeyByHash(ctx context.Context, hash string) (*StoredKey, error)

	// Keys returns every key, expired ones included, in name order.
	Keys(ctx context.Context) ([]StoredKey, error)

	// RevokeKey removes the key called name; ErrNotFound when there is
	// none.
	RevokeKey(ctx context.Context, name string) error
}

// StoredKey is an API key as a store holds it.
type StoredKey struct {
	// The key's name, which the history records for what it writes.
	Name string `json:"name"`

	// The SHA-256 hash of the secret, 64 lowercase hexadecimal digits.
	Hash string `json:"hash"`

	// The scopes, as a configured key has them ("read:<prefix>",
	// "write:<prefix>", "admin").
	Scopes []string `json:"scopes"`

	// What the key is for, in the words of who made it; may be "".
	Label string `json:"label,omitempty"`

	// When the key stops working; zero for never.
	Expires time.Time `json:"expires,omitzero"`

	// When the key was made, and the name of the key or person that
	// made it.
	Created   time.Time `json:"created"`
	CreatedBy string    `json:"created_by"`
}

// Expired reports whether k no longer works at now.
func (k *StoredKey) Expired(now time.Time) bool {
	return !k.Expires.IsZero() && !now.Before(k.Expires)
}

// SortKeys sorts keys by name, as Keys returns them.
func SortKeys(keys []StoredKey) {
	slices.SortFunc(keys, func(a, b StoredKey) int { return strings.Compare(a.Name, b.Name) })
}
