// Package sitesecret makes the secrets that sign what one node hands out
// and another must accept (OAI-PMH resumption tokens, EZID sessions and
// download links): a secret of the configuration, else one made once of
// random bytes and kept in Caddy's storage. Nodes that share Caddy's
// storage, or are given the same secret, accept each other's signatures,
// across reloads and restarts, with no protocol between them.
package sitesecret

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
)

// MinLength is the shortest secret taken, in bytes.
const MinLength = 16

// Key returns the secret that signs: configured (placeholders such as
// {env.SECRET} replaced) when it is not "", else the one Caddy's storage
// keeps under storageKey (Stored). A configured secret shorter than
// MinLength is refused with "must be at least 16 bytes long, is <n>",
// for the caller to prefix with the option's name.
func Key(ctx caddy.Context, configured, storageKey string) ([]byte, error) {
	if configured != "" {
		secret := caddy.NewReplacer().ReplaceKnown(configured, "")
		if len(secret) < MinLength {
			return nil, fmt.Errorf("must be at least %d bytes long, is %d", MinLength, len(secret))
		}
		return []byte(secret), nil
	}
	key, err := Stored(ctx, ctx.Storage(), storageKey)
	if err != nil {
		return nil, &StorageError{Key: storageKey, Err: err}
	}
	return key, nil
}

// StorageError is a secret that Caddy's storage could not give.
type StorageError struct {
	Key string // where in the storage
	Err error
}

func (e *StorageError) Error() string {
	return fmt.Sprintf("in Caddy's storage at %s: %v", e.Key, e.Err)
}

func (e *StorageError) Unwrap() error { return e.Err }

// Stored returns the secret st keeps under key, making and storing one of
// 32 random bytes under st's lock when there is none, so that nodes
// starting together agree.
func Stored(ctx context.Context, st certmagic.Storage, key string) ([]byte, error) {
	load := func() ([]byte, error) {
		b, err := st.Load(ctx, key)
		if errors.Is(err, fs.ErrNotExist) || err == nil && len(b) < MinLength {
			return nil, nil
		}
		return b, err
	}
	if b, err := load(); b != nil || err != nil {
		return b, err
	}
	if err := st.Lock(ctx, key); err != nil {
		return nil, err
	}
	defer func() { _ = st.Unlock(ctx, key) }()
	if b, err := load(); b != nil || err != nil {
		return b, err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return b, st.Store(ctx, key, b)
}
