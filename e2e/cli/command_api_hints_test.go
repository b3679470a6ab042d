package cli

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// An --api that does not name the API (a wrong prefix) is told so, with
// what was asked, not a bare "404 Not Found:".
func TestAPICommandWithAWrongPrefixSaysSo(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	t.Setenv("ARK_API_KEY", "editor-secret")
	_, _, err := caddytest.RunArkCommand(t, "", "changes", "--api", s.Base+"/api")
	want := "GET " + s.Base + "/api/changes?limit=1000 answered \"not the API\": not an answer of the ark API; --api should be"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("changes --api <wrong prefix>: %v; want it to say %q", err, want)
	}
	_, _, err = caddytest.RunArkCommand(t, "", "ids", "--api", s.Base+"/ark-api")
	if err == nil || !strings.Contains(err.Error(), "/ark-api/ids") || !strings.Contains(err.Error(), "not an answer of the ark API") {
		t.Errorf("ids --api <wrong prefix>: %v", err)
	}
	// The API's own refusals are printed as they were.
	_, _, err = caddytest.RunArkCommand(t, "", "bind", "--api", s.Base+"/api/ark", "ark:12345/x5a", "https://e.org/a", "--status", "301")
	if err == nil || !strings.HasPrefix(err.Error(), "400 Bad Request: ark:12345/x5a: permanent redirects") {
		t.Errorf("bind with a 301: %v", err)
	}
}

// targets --check without --prefix, by a key that may not write every
// identifier, is told which prefixes it may check.
func TestTargetsCheckWithoutAPrefixSuggestsOne(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	for key, want := range map[string]string{
		"x5-secret":     "403 Forbidden: key x5 may not write every identifier, which checking its targets needs; give a prefix it may write: ark:12345/x5",
		"editor-secret": "give a prefix it may write: ark:12345, urn:isbn",
	} {
		t.Setenv("ARK_API_KEY", key)
		_, _, err := caddytest.RunArkCommand(t, "", "targets", "--api", s.Base+"/api/ark", "--check")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: targets --check: %v; want %q", key, err, want)
		}
	}
	t.Setenv("ARK_API_KEY", "x5-secret")
	if out, _, err := caddytest.RunArkCommand(t, "", "targets", "--api", s.Base+"/api/ark", "--check", "--prefix", "ark:12345/x5"); err != nil || !strings.HasSuffix(out, "their targets are checked next\n") {
		t.Errorf("targets --check --prefix ark:12345/x5: %q %v", out, err)
	}
}
