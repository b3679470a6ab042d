package console

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A key's name outside printable ASCII (a configured one, or a stored
// one made before the rule) shows each such character as a marker
// wherever the console names a key, so that "x5еd" (a Cyrillic е) never
// looks like "x5ed"; and the console makes no new key with such a name
// (issue 36, item 7).
func TestConsoleKeyNamesCannotLookAlike(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	cyrillic := "x5\u0435d"
	s.Reload(caddytest.APIKeys+"\n\t\tkey "+cyrillic+" "+caddytest.KeyHash(cyrillic+"-secret")+" admin write:ark:12345", "ui")
	marked := `<bdi>x5<span class="ctl">U+0435</span>d</bdi>`
	if got := s.Call("PUT", "/id/ark:12345/x5one", cyrillic, `{"target": "https://repo.example.org/one"}`); got.Status != http.StatusCreated {
		t.Fatalf("binding as %s: %d %s", cyrillic, got.Status, got.Body)
	}
	admin := s.SignIn(cyrillic)
	if got := admin.Get(""); !strings.Contains(got.Body, "Signed in as <strong>"+marked+"</strong>") {
		t.Errorf("the header does not mark the name: %s", got.Body)
	}
	if got := admin.Get("id/ark:12345/x5one"); !strings.Contains(got.Body, "by "+marked) {
		t.Errorf("the identifier's page does not mark its writer: %s", got.Body)
	}
	if got := admin.Get("changes"); !strings.Contains(got.Body, marked) {
		t.Errorf("the feed does not mark the writer: %s", got.Body)
	}

	token := admin.Token("keys")
	got := admin.Post("keys", url.Values{"csrf": {token}, "name": {"x5\u0435d2"}, "scopes": {"read:ark:12345"}})
	if got.Status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(got.Body), "U+0435 at byte 2: a new key's name is ASCII letters, digits") {
		t.Errorf("a new key named with a Cyrillic е: %d, want 400 naming it: %s", got.Status, got.Body)
	}
	got = admin.Post("keys", url.Values{"csrf": {token}, "name": {"x5ed"}, "scopes": {"read:ark:12345"}})
	if got.Status != http.StatusCreated {
		t.Fatalf("a new key x5ed: %d %s", got.Status, got.Body)
	}
	if list := admin.Get("keys"); !strings.Contains(list.Body, "<strong>x5ed</strong>") || !strings.Contains(list.Body, "by "+marked) {
		t.Errorf("the list shows x5ed made by %s unmarked: %s", cyrillic, list.Body)
	}
}
