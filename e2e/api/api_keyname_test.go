package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A key made through the API has a name of ASCII letters, digits, ".",
// "_" and "-": one that would look like another's ("x5еd", a Cyrillic е,
// beside "x5ed") is refused with the character it holds (issue 36, item
// 7), and nothing is made.
func TestAPIKeyNamesAreASCII(t *testing.T) {
	s := caddytest.StartKeysSite(t)
	made := caddytest.AddKey(t, s, api.KeyRequest{Name: "x5ed", Scopes: []string{"read:ark:12345"}})
	if made.Name != "x5ed" {
		t.Fatalf("made %q", made.Name)
	}
	for name, reason := range map[string]string{
		"x5\u0435d":             "key \\\"x5\u0435d\\\": U+0435 at byte 2: a new key's name is ASCII letters, digits",
		"x5ed\u200b":            "U+200B at byte 4",
		"scan/ner":              "U+002F at byte 4",
		"scan:ner":              "U+003A at byte 4",
		"-scanner":              "starting with a letter or a digit",
		strings.Repeat("k", 65): "longer than 64 bytes",
		"":                      "no name",
	} {
		got := caddytest.CallSecret(t, s, "POST", "/keys", "boss-secret", `{"name": "`+name+`", "scopes": ["read:ark:12345"]}`)
		if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, reason) {
			t.Errorf("the name %q: %d %s, want 400 with %q", name, got.Status, got.Body, reason)
		}
	}
	got := caddytest.CallSecret(t, s, "GET", "/keys", "boss-secret", "")
	if n := strings.Count(got.Body, `"name"`); got.Status != http.StatusOK || n != 1 {
		t.Errorf("after the refusals, %d keys: %d %s", n, got.Status, got.Body)
	}
	for _, ok := range []string{"scanner.2", "Scan_ner-3", strings.Repeat("k", 64)} {
		caddytest.AddKey(t, s, api.KeyRequest{Name: ok, Scopes: []string{"read:ark:12345"}})
	}
}
