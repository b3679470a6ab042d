package store

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A store moved with store dump and store load keeps its API keys: the
// key made on the old store works on the new one. A dump of version 1,
// which cannot hold them, says that it left them out.
func TestStoreDumpCarriesStoredKeys(t *testing.T) {
	s := caddytest.StartKeysSite(t)
	k := caddytest.AddKey(t, s, api.KeyRequest{Name: "vendor", Scopes: []string{"read:ark:12345"}, Label: "moved along"})
	// Caddy lets go of the file.
	caddytest.StartSite(t, `respond "elsewhere" 200`)

	dir := t.TempDir()
	dump, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", s.DB)
	if status != 0 || !strings.Contains(stderr, ", 1 API key\n") {
		t.Fatalf("store dump: %d %s", status, stderr)
	}
	if _, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", s.DB, "--version", "1", "-o", filepath.Join(dir, "v1.ndjson")); status != 0 || !strings.Contains(stderr, "left out 1 API key kept in the store") {
		t.Errorf("store dump --version 1: %d %s", status, stderr)
	}
	moved := filepath.Join(dir, "moved.db")
	if _, stderr, status := caddytest.RunCaddy(t, dump, "ark", "store", "load", "--store", moved); status != 0 {
		t.Fatalf("store load: %d %s", status, stderr)
	}
	m := &caddytest.APISite{DB: moved, Table: s.Table}
	m.Site = caddytest.StartSite(t, caddytest.AdminKeys(caddytest.APISiteBody(moved, s.Table, "")))
	if got := caddytest.CallSecret(t, m, "GET", "/id/ark:12345/t1", k.Secret, ""); got.Status == http.StatusUnauthorized {
		t.Errorf("the key on the moved store: %d %s", got.Status, got.Body)
	}
	if got := caddytest.CallSecret(t, m, "GET", "/keys", "boss-secret", ""); !strings.Contains(got.Body, `"label": "moved along"`) {
		t.Errorf("GET keys on the moved store: %d %s", got.Status, got.Body)
	}
}
