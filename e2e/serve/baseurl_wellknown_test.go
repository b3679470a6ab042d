package serve

import (
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddyserver/caddy/v2"
)

// /.well-known/ark names the resolver service: with base_url, that is
// base_url, like every other self-link, whatever the Host.
func TestWellKnownUsesBaseURL(t *testing.T) {
	s := &caddytest.Site{T: t, CatchAll: true}
	if err := s.Load(`
	ark {
		naan 12345
		base_url https://ark.example.org/resolver/
	}`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	if got, _ := siteGetWithHost(s, "/.well-known/ark", "evil.example", nil); got.Status != 200 || got.Body != "https://ark.example.org/resolver/" {
		t.Errorf("got %d %q, want base_url with its trailing /", got.Status, got.Body)
	}
}
