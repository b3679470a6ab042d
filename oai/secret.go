package oai

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
)

// secretStorageKey is where Caddy's storage keeps the secret that signs
// resumption tokens when the configuration gives none.
const secretStorageKey = "ark/oai/token_secret"

// minSecret is the shortest token_secret taken, in bytes.
const minSecret = 16

// provisionKey makes the key that signs resumption tokens: token_secret
// (placeholders such as {env.OAI_TOKEN_SECRET} replaced), else the secret
// Caddy's storage keeps, made of 32 random bytes the first time. Nodes
// that share Caddy's storage, or are given one token_secret, accept each
// other's tokens, across reloads and restarts.
func (c *Config) provisionKey(ctx caddy.Context) error {
	if c.TokenSecret != "" {
		secret := caddy.NewReplacer().ReplaceKnown(c.TokenSecret, "")
		if len(secret) < minSecret {
			return fmt.Errorf("oai: token_secret must be at least %d bytes long, is %d", minSecret, len(secret))
		}
		c.key = []byte(secret)
		return nil
	}
	key, err := storedSecret(ctx, ctx.Storage())
	if err != nil {
		return fmt.Errorf("oai: the secret that signs resumption tokens, in Caddy's storage at %s: %w", secretStorageKey, err)
	}
	c.key = key
	return nil
}

// storedSecret returns the secret st keeps, making and storing one under
// st's lock when there is none, so that nodes starting together agree.
func storedSecret(ctx context.Context, st certmagic.Storage) ([]byte, error) {
	load := func() ([]byte, error) {
		b, err := st.Load(ctx, secretStorageKey)
		if errors.Is(err, fs.ErrNotExist) || err == nil && len(b) < minSecret {
			return nil, nil
		}
		return b, err
	}
	if b, err := load(); b != nil || err != nil {
		return b, err
	}
	if err := st.Lock(ctx, secretStorageKey); err != nil {
		return nil, err
	}
	defer func() { _ = st.Unlock(ctx, secretStorageKey) }()
	if b, err := load(); b != nil || err != nil {
		return b, err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return b, st.Store(ctx, secretStorageKey, b)
}
