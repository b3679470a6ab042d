package console

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddyserver/caddy/v2"
)

// A session belongs to the console that signed it in: the cookie of one
// site's console signs no one in on another site's console in the same
// Caddy, though both have the same key line and the same secret (the
// process's, or one secret_file). Consoles with the same API prefix and
// the same store are one console, as the nodes of one site behind one
// name are: with the same secret they share their sessions.
func TestConsoleSessionsStayOnTheirSite(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "console.secret")
	if err := os.WriteFile(secret, []byte("a secret of the two sites' consoles, long enough\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, ui string }{
		{"the process's secret", "ui"},
		{"one secret_file", "ui {\n\t\t\tsecret_file " + secret + "\n\t\t}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := newConsoleSite(t), newConsoleSite(t)
			loadConsoleSitesWith(t, c.ui, a, b)
			t.Cleanup(func() { _ = caddy.Stop() })

			editor := a.SignIn("editor")
			cookie, token := editor.Cookie(), editor.Token("")
			if got := a.WithCookie(http.MethodGet, "", cookie, nil); got.Status != http.StatusOK {
				t.Fatalf("the cookie on its own site's console: %d %s", got.Status, got.Location)
			}
			b.ExpectSignedOut("site A's cookie on site B's console", cookie, token)
		})
	}
	t.Run("one store, one prefix, one secret_file", func(t *testing.T) {
		a, b := newConsoleSite(t), newConsoleSite(t)
		b.DB = a.DB
		loadConsoleSitesWith(t, "ui {\n\t\t\tsecret_file "+secret+"\n\t\t}", a, b)
		t.Cleanup(func() { _ = caddy.Stop() })

		cookie := a.SignIn("editor").Cookie()
		if got := b.WithCookie(http.MethodGet, "", cookie, nil); got.Status != http.StatusOK {
			t.Errorf("the cookie on the console of the same store and prefix: %d %s, want 200 (one console)", got.Status, got.Location)
		}
	})
}

// loadConsoleSitesWith loads one config with the sites a and b, each
// with the test keys and the console's ui subdirective ui.
func loadConsoleSitesWith(t *testing.T, ui string, a, b *caddytest.ConsoleSite) {
	t.Helper()
	caddyfile := caddytest.GlobalOptions
	for _, s := range []*caddytest.ConsoleSite{a, b} {
		caddyfile += "\n" + s.Base + " {\n\tbind 127.0.0.1\n" + s.Body(caddytest.APIKeys, ui) + "\n}\n"
	}
	cfg, err := caddytest.AdaptCaddyfile(caddyfile, filepath.Join(t.TempDir(), "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := caddytest.LoadConfig(cfg, true); err != nil {
		t.Fatalf("loading the sites: %v", err)
	}
	caddytest.Client.CloseIdleConnections()
}
