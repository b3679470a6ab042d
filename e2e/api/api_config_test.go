package api

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

func TestAPIKeyFile(t *testing.T) {
	keys := testkit.WriteFile(t, "keys.txt", "# name hash scopes\n\ncatalog "+caddytest.KeyHash("catalog-secret")+" read:ark:12345/x5 write:ark:12345/x5c\n")
	db := filepath.Join(t.TempDir(), "ark.db")
	s := &caddytest.APISite{Site: caddytest.StartSite(t, `
	ark {
		naan 12345
		store bolt `+db+`
		api /api/ark {
			key_file `+keys+`
		}
	}`), DB: db}
	if got := s.Call("PUT", "/id/ark:12345/x5c1", "catalog", `{"target": "/c1"}`); got.Status != http.StatusCreated || got.Binding(t).By != "catalog" {
		t.Errorf("a key from the key file: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PUT", "/id/ark:12345/x5d1", "catalog", `{"target": "/d1"}`); got.Status != http.StatusForbidden {
		t.Errorf("out of its write scope: %d %s", got.Status, got.Body)
	}
	if got := s.Call("GET", "/id/ark:12345/x5c1", "catalog", ""); got.Status != http.StatusOK {
		t.Errorf("in its read scope: %d %s", got.Status, got.Body)
	}
	if got := s.Call("DELETE", "/id/ark:12345/x5c1", "catalog", ""); got.Status != http.StatusMethodNotAllowed || got.Header.Get("Allow") != "GET, HEAD, PUT, PATCH" {
		t.Errorf("DELETE: %d %q", got.Status, got.Header.Get("Allow"))
	}
	if got := s.Call("GET", "/nothing", "catalog", ""); got.Status != http.StatusNotFound {
		t.Errorf("an unknown API path: %d", got.Status)
	}
}

func TestAPIConfigRefused(t *testing.T) {
	s := caddytest.StartSite(t, `respond "first" 200`)
	badFile := testkit.WriteFile(t, "keys.txt", "good "+caddytest.KeyHash("x")+" read:*\nbad 1234 read:*\n")
	for _, c := range []struct{ api, want string }{
		{`api /api/ark {
			key editor 1234 write:ark:12345
		}`, "not a SHA-256 hash"},
		{`api /api/ark {
			key editor ` + caddytest.KeyHash("x") + ` delete:ark:12345
		}`, "write read:<prefix> or write:<prefix>"},
		{`api /api/ark {
			key editor ` + caddytest.KeyHash("x") + `
		}`, "want <name> <sha256-hex> <scope>"},
		{`api /api/ark {
			key_file ` + badFile + `
		}`, badFile + ":2: key bad"},
		{`api /api/ark {
		}`, "no keys"},
		{`api /ark:12345 {
			key editor ` + caddytest.KeyHash("x") + ` read:*
		}`, "identifiers are answered there"},
		{`api /api/ark/ {
			key editor ` + caddytest.KeyHash("x") + ` read:*
		}`, "not ending with one"},
		{`api /api/ark {
			key a ` + caddytest.KeyHash("x") + ` read:*
			key b ` + caddytest.KeyHash("x") + ` read:*
		}`, "given twice"},
	} {
		err := s.Load("ark {\n\t\tstore bolt " + filepath.Join(t.TempDir(), "ark.db") + "\n\t\t" + c.api + "\n\t}")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.api, err, c.want)
		}
	}
	if got := s.Get("/"); got.Body != "first" {
		t.Errorf("the running config after the refusals: %d %q", got.Status, got.Body)
	}
}
