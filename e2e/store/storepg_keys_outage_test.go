package store

import (
	"net/http"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// While the PostgreSQL server is down, a secret that no configured key
// has gets 503 with Retry-After, not 401: the API cannot tell whether the
// store has the key. Once the server is back, the stored key works.
func TestPostgresDownStoredKeyIsUnavailableNotUnknown(t *testing.T) {
	c := testkit.StartPostgres(t)
	dsn := c.CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	s := &caddytest.APISite{Site: caddytest.StartSite(t, caddytest.AdminKeys(caddytest.PGSiteBody(dsn, tablePath))), Table: tablePath}
	k := caddytest.AddKey(t, s, api.KeyRequest{Name: "vendor", Scopes: []string{"read:ark:12345"}})

	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	got := caddytest.CallSecret(t, s, "GET", "/id/ark:12345/t1", k.Secret, "")
	if got.Status != http.StatusServiceUnavailable || got.Header.Get("Retry-After") == "" {
		t.Errorf("a stored key while the server is down: %d %s (Retry-After %q), want 503 with Retry-After", got.Status, got.Body, got.Header.Get("Retry-After"))
	}

	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the stored key to work again", func() bool {
		return caddytest.CallSecret(t, s, "GET", "/id/ark:12345/t1", k.Secret, "").Status != http.StatusServiceUnavailable
	})
	if got := caddytest.CallSecret(t, s, "GET", "/id/ark:12345/t1", k.Secret, ""); got.Status == http.StatusUnauthorized {
		t.Errorf("the stored key once the server is back: %d %s", got.Status, got.Body)
	}
}
