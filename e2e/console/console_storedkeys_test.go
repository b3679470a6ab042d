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

// A limited admin's list of keys shows only the keys it may revoke, each
// with its Revoke button: a wider key is not shown, not even by name
// (issue 36, item 9).
func TestConsoleKeysListedToWhoMayRevokeThem(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	s.Reload(caddytest.APIKeys+"\n\t\tkey boss "+caddytest.KeyHash("boss-secret")+" admin write:ark:12345", "ui")
	deputy := caddytest.AddKey(t, s.APISite, api.KeyRequest{Name: "deputy", Scopes: []string{"admin", "write:ark:12345/x5"}})
	caddytest.AddKey(t, s.APISite, api.KeyRequest{Name: "wide", Scopes: []string{"write:ark:12345"}, Label: "the whole NAAN"})
	caddytest.AddKey(t, s.APISite, api.KeyRequest{Name: "narrow", Scopes: []string{"write:ark:12345/x5b"}, Label: "the x5b room"})

	u := s.NewUser()
	if got := u.Post("signin", url.Values{"csrf": {u.Token("signin")}, "key": {deputy.Secret}}); got.Status != http.StatusSeeOther {
		t.Fatalf("signing in as the deputy: %d %s", got.Status, got.Body)
	}
	page := u.Get("keys")
	if page.Status != http.StatusOK {
		t.Fatalf("the deputy's keys page: %d %s", page.Status, page.Body)
	}
	for _, want := range []string{`<tr id="key-narrow">`, "the x5b room", `aria-label="Revoke narrow"`, `aria-label="Revoke deputy"`} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the deputy's keys page lacks %s: %s", want, page.Body)
		}
	}
	for _, not := range []string{"wide", "the whole NAAN", "write:ark:12345<", `"write:ark:12345"`} {
		if strings.Contains(page.Body, not) {
			t.Errorf("the deputy's keys page tells of the wider key (%s): %s", not, page.Body)
		}
	}
	if n := strings.Count(page.Body, ">Revoke</button>"); n != 2 {
		t.Errorf("the deputy's keys page has %d Revoke buttons, want 2 (deputy, narrow)", n)
	}
	boss := s.SignIn("boss")
	if got := boss.Get("keys"); !strings.Contains(got.Body, `aria-label="Revoke wide"`) {
		t.Errorf("the admin of the NAAN is not offered to revoke the wider key: %s", got.Body)
	}
}
