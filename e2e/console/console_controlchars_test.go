package console

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// The console's writes go through the API's checks: a NUL in a
// withdrawal's reason or a key's label is refused, 400, with the reason,
// and nothing changes (issue 36, item 6).
func TestConsoleRefusesControlCharacters(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	s.Reload(caddytest.APIKeys+"\n\t\tkey boss "+caddytest.KeyHash("boss-secret")+" admin write:ark:12345", "ui")
	s.Call("PUT", "/id/ark:12345/x5one", "editor", `{"target": "https://old.example.org/one"}`)
	boss := s.SignIn("boss")
	token := boss.Token("")

	got := boss.Post("withdraw/ark:12345/x5one", url.Values{"csrf": {token}, "version": {"1"}, "reason": {"gone\x00"}})
	if got.Status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(got.Body), "the reason holds U+0000 at byte 4") {
		t.Errorf("a NUL in the reason: %d, want 400 saying so: %s", got.Status, got.Body)
	}
	if b := s.Lookup("ark:12345/x5one").Binding; b.Status != http.StatusFound || b.Version != 1 {
		t.Errorf("after the refused withdrawal: %+v", b)
	}

	got = boss.Post("keys", url.Values{"csrf": {token}, "name": {"scanner"}, "scopes": {"read:ark:12345"}, "label": {"the \x00 room"}})
	if got.Status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(got.Body), "the label holds U+0000 at byte 4") {
		t.Errorf("a NUL in the label: %d, want 400 saying so: %s", got.Status, got.Body)
	}
	if got := caddytest.CallSecret(t, s.APISite, "GET", "/keys", "boss-secret", ""); got.Status != http.StatusOK || strings.Contains(got.Body, "scanner") {
		t.Errorf("after the refused key: %d %s", got.Status, got.Body)
	}
}
