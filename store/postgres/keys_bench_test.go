package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
)

// BenchmarkPostgresKeyByHash measures what a request with a stored key
// costs in looking the key up, beside the lookup of one identifier that
// every resolution makes: the API reads stored keys with each request,
// uncached (BENCHMARKS.md, "Stored API keys").
func BenchmarkPostgresKeyByHash(b *testing.B) {
	s := testkit.Provision(b, &Store{DSN: testkit.SharedPostgres(b).CreateDB(b)})
	ctx := context.Background()
	hashes := make([]string, 100)
	for i := range hashes {
		sum := sha256.Sum256([]byte("secret" + strconv.Itoa(i)))
		hashes[i] = hex.EncodeToString(sum[:])
		k := store.StoredKey{Name: "k" + strconv.Itoa(i), Hash: hashes[i], Scopes: []string{"read:*"}, Created: time.Now(), CreatedBy: "bench"}
		if err := s.AddKey(ctx, k); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("KeyByHash", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := s.KeyByHash(ctx, hashes[i%len(hashes)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Lookup", func(b *testing.B) {
		keys := []string{"ark:12345/x5abc"}
		for b.Loop() {
			if _, err := s.Lookup(ctx, keys); err != nil {
				b.Fatal(err)
			}
		}
	})
}
