package cli

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// caddy ark keys add prints a new key's secret alone on standard output,
// once; the key works at once; keys list shows it without its secret;
// keys revoke ends it.
func TestBinaryKeysCommands(t *testing.T) {
	s := caddytest.StartKeysSite(t)
	apiURL := s.Base + "/api/ark"
	t.Setenv("ARK_API_KEY", "boss-secret")

	out, errOut, status := caddytest.RunCaddy(t, "", "ark", "keys", "add", "--api", apiURL, "--scope", "write:ark:12345/x5", "--label", "the scanning room", "--expires", "30d", "scanner")
	secret := strings.TrimSuffix(out, "\n")
	if status != 0 || secret == "" || strings.ContainsAny(secret, " \n") || !strings.Contains(errOut, "key scanner (write:ark:12345/x5), expires 20") || !strings.Contains(errOut, "shown this once") {
		t.Fatalf("keys add: %d %q %q", status, out, errOut)
	}

	t.Setenv("ARK_API_KEY", secret)
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "bind", "--api", apiURL, "ark:12345/x5cli", "https://repo.example.org/cli")
	if want := "ark:12345/x5cli 302 https://repo.example.org/cli (version 1)\n"; status != 0 || out != want {
		t.Errorf("bind with the new key: %d %q %q, want %q", status, out, errOut, want)
	}
	if _, errOut, status = caddytest.RunCaddy(t, "", "ark", "keys", "list", "--api", apiURL); status != 1 || !strings.Contains(errOut, "403 Forbidden") {
		t.Errorf("keys list with a key that is no admin: %d %q", status, errOut)
	}

	t.Setenv("ARK_API_KEY", "boss-secret")
	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "keys", "list", "--api", apiURL)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if status != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "NAME") || strings.Contains(out, secret) {
		t.Fatalf("keys list: %d %q %q", status, out, errOut)
	}
	if f := strings.Fields(lines[1]); len(f) < 6 || f[0] != "scanner" || f[1] != "write:ark:12345/x5" || f[4] != "boss" || !strings.HasSuffix(lines[1], "the scanning room") {
		t.Errorf("keys list's line: %q", lines[1])
	}
	if _, errOut, status = caddytest.RunCaddy(t, "", "ark", "keys", "add", "--api", apiURL, "--scope", "write:*", "wide"); status != 1 || !strings.Contains(errOut, "403 Forbidden: key boss may not give scope write:*") {
		t.Errorf("keys add beyond the admin's scopes: %d %q", status, errOut)
	}
	if _, errOut, status = caddytest.RunCaddy(t, "", "ark", "keys", "add", "--api", apiURL, "--scope", "read:ark:12345", "--expires", "someday", "vague"); status != 1 || !strings.Contains(errOut, `--expires "someday"`) {
		t.Errorf("keys add --expires someday: %d %q", status, errOut)
	}

	out, errOut, status = caddytest.RunCaddy(t, "", "ark", "keys", "revoke", "--api", apiURL, "scanner")
	if status != 0 || out != "key scanner revoked\n" {
		t.Errorf("keys revoke: %d %q %q", status, out, errOut)
	}
	t.Setenv("ARK_API_KEY", secret)
	if _, errOut, status = caddytest.RunCaddy(t, "", "ark", "bind", "--api", apiURL, "ark:12345/x5cli2", "/x"); status != 1 || !strings.Contains(errOut, "401 Unauthorized: the key is not known here") {
		t.Errorf("bind with the revoked key: %d %q", status, errOut)
	}
}
