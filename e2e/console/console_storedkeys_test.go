package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A curator given a stored key signs in to the console with it and acts
// with its scopes; revoking the key ends the session on the next page.
func TestConsoleSignInWithStoredKey(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	s.Reload(caddytest.APIKeys+"\n\t\tkey boss "+caddytest.KeyHash("boss-secret")+" admin write:ark:12345", "ui")
	k := caddytest.AddKey(t, s.APISite, api.KeyRequest{Name: "curator", Scopes: []string{"write:ark:12345/x5"}})

	u := s.NewUser()
	got := u.Post("signin", url.Values{"csrf": {u.Token("signin")}, "key": {k.Secret}})
	if got.Status != http.StatusSeeOther || got.Location != caddytest.ConsoleUI {
		t.Fatalf("signing in with the stored key: %d %s %s", got.Status, got.Location, got.Body)
	}
	if got := u.Get(""); got.Status != http.StatusOK || !strings.Contains(got.Body, "Signed in as <strong>curator</strong>") {
		t.Fatalf("the front page, signed in: %d %s", got.Status, got.Body)
	}
	if got := u.Get("keys"); got.Status != http.StatusForbidden {
		t.Errorf("the keys page for the curator, no admin: %d, want 403", got.Status)
	}

	if got := caddytest.CallSecret(t, s.APISite, "DELETE", "/keys/curator", "boss-secret", ""); got.Status != http.StatusNoContent {
		t.Fatalf("DELETE keys/curator: %d %s", got.Status, got.Body)
	}
	if got := u.Get(""); got.Status != http.StatusSeeOther || !strings.HasSuffix(got.Location, "signin") {
		t.Errorf("the front page after the key was revoked: %d %s, want a redirect to sign in", got.Status, got.Location)
	}
	again := s.NewUser()
	if got := again.Post("signin", url.Values{"csrf": {again.Token("signin")}, "key": {k.Secret}}); got.Status != http.StatusUnauthorized {
		t.Errorf("signing in with the revoked key: %d, want 401", got.Status)
	}
}
