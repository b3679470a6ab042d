package oai

import (
	"errors"
	"fmt"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-ark/caddy-ark/internal/sitesecret"
)

// secretStorageKey is where Caddy's storage keeps the secret that signs
// resumption tokens when the configuration gives none.
const secretStorageKey = "ark/oai/token_secret"

// minSecret is the shortest token_secret taken, in bytes.
const minSecret = sitesecret.MinLength

// provisionKey makes the key that signs resumption tokens: token_secret
// (placeholders such as {env.OAI_TOKEN_SECRET} replaced), else the secret
// Caddy's storage keeps, made of 32 random bytes the first time. Nodes
// that share Caddy's storage, or are given one token_secret, accept each
// other's tokens, across reloads and restarts.
func (c *Config) provisionKey(ctx caddy.Context) error {
	key, err := sitesecret.Key(ctx, c.TokenSecret, secretStorageKey)
	var stored *sitesecret.StorageError
	switch {
	case errors.As(err, &stored):
		return fmt.Errorf("oai: the secret that signs resumption tokens, in Caddy's storage at %s: %w", secretStorageKey, stored.Err)
	case err != nil:
		return fmt.Errorf("oai: token_secret %w", err)
	}
	c.key = key
	return nil
}
