package console

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// A key removed from one site's console by a reload, and added back by
// another, does not bring back the sessions signed in there before it was
// removed, even though another site's console, with the same key and the
// same process secret, kept the key throughout.
func TestConsoleRemovedKeySessionsStayEndedWithTwoSites(t *testing.T) {
	a, b := newConsoleSite(t), newConsoleSite(t)
	without := strings.Replace(caddytest.APIKeys, "key x5 %x5 write:ark:12345/x5", "", 1)
	loadConsoleSites(t, a, caddytest.APIKeys, b, caddytest.APIKeys)
	t.Cleanup(func() { _ = caddy.Stop() })

	x5 := a.SignIn("x5")
	x5Cookie, x5Token := x5.Cookie(), x5.Token("")
	loadConsoleSites(t, a, without, b, caddytest.APIKeys)
	a.ExpectSignedOut("a removed key's cookie", x5Cookie, x5Token)
	loadConsoleSites(t, a, caddytest.APIKeys, b, caddytest.APIKeys)
	a.ExpectSignedOut("the cookie of a key removed and added back, which the other site kept", x5Cookie, x5Token)
}

// newConsoleSite returns a console site with a store and table of its
// own on a port of its own, not loaded yet.
func newConsoleSite(t *testing.T) *caddytest.ConsoleSite {
	return &caddytest.ConsoleSite{APISite: &caddytest.APISite{
		Site:  &caddytest.Site{T: t, Base: "http://127.0.0.1:" + strconv.Itoa(caddytest.FreePort(t))},
		DB:    filepath.Join(t.TempDir(), "ark.db"),
		Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}}
}

// loadConsoleSites loads one config with the sites a and b, each with
// its keys and a console.
func loadConsoleSites(t *testing.T, a *caddytest.ConsoleSite, aKeys string, b *caddytest.ConsoleSite, bKeys string) {
	t.Helper()
	caddyfile := caddytest.GlobalOptions
	for _, s := range []struct {
		site *caddytest.ConsoleSite
		keys string
	}{{a, aKeys}, {b, bKeys}} {
		caddyfile += "\n" + s.site.Base + " {\n\tbind 127.0.0.1\n" + s.site.Body(s.keys, "ui") + "\n}\n"
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
