package ark

import (
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// /.well-known/ark names the resolver service: with base_url, that is
// base_url, like every other self-link, whatever the Host.
func TestWellKnownUsesBaseURL(t *testing.T) {
	s := &site{t: t, catchAll: true}
	if err := s.load(`
	ark {
		naan 12345
		base_url https://ark.example.org/resolver/
	}`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	if got, _ := s.getWithHost("/.well-known/ark", "evil.example", nil); got.status != 200 || got.body != "https://ark.example.org/resolver/" {
		t.Errorf("got %d %q, want base_url with its trailing /", got.status, got.body)
	}
}
