package ark

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

func TestAPIKeyFile(t *testing.T) {
	keys := testkit.WriteFile(t, "keys.txt", "# name hash scopes\n\ncatalog "+keyHash("catalog-secret")+" read:ark:12345/x5 write:ark:12345/x5c\n")
	db := filepath.Join(t.TempDir(), "ark.db")
	s := &apiSite{site: startSite(t, `
	ark {
		naan 12345
		store bolt `+db+`
		api /api/ark {
			key_file `+keys+`
		}
	}`), db: db}
	if got := s.call("PUT", "/id/ark:12345/x5c1", "catalog", `{"target": "/c1"}`); got.status != http.StatusCreated || got.binding(t).By != "catalog" {
		t.Errorf("a key from the key file: %d %s", got.status, got.body)
	}
	if got := s.call("PUT", "/id/ark:12345/x5d1", "catalog", `{"target": "/d1"}`); got.status != http.StatusForbidden {
		t.Errorf("out of its write scope: %d %s", got.status, got.body)
	}
	if got := s.call("GET", "/id/ark:12345/x5c1", "catalog", ""); got.status != http.StatusOK {
		t.Errorf("in its read scope: %d %s", got.status, got.body)
	}
	if got := s.call("DELETE", "/id/ark:12345/x5c1", "catalog", ""); got.status != http.StatusMethodNotAllowed || got.header.Get("Allow") != "GET, HEAD, PUT, PATCH" {
		t.Errorf("DELETE: %d %q", got.status, got.header.Get("Allow"))
	}
	if got := s.call("GET", "/nothing", "catalog", ""); got.status != http.StatusNotFound {
		t.Errorf("an unknown API path: %d", got.status)
	}
}

func TestAPIConfigRefused(t *testing.T) {
	s := startSite(t, `respond "first" 200`)
	badFile := testkit.WriteFile(t, "keys.txt", "good "+keyHash("x")+" read:*\nbad 1234 read:*\n")
	for _, c := range []struct{ api, want string }{
		{`api /api/ark {
			key editor 1234 write:ark:12345
		}`, "not a SHA-256 hash"},
		{`api /api/ark {
			key editor ` + keyHash("x") + ` delete:ark:12345
		}`, "write read:<prefix> or write:<prefix>"},
		{`api /api/ark {
			key editor ` + keyHash("x") + `
		}`, "want <name> <sha256-hex> <scope>"},
		{`api /api/ark {
			key_file ` + badFile + `
		}`, badFile + ":2: key bad"},
		{`api /api/ark {
		}`, "no keys"},
		{`api /ark:12345 {
			key editor ` + keyHash("x") + ` read:*
		}`, "identifiers are answered there"},
		{`api /api/ark/ {
			key editor ` + keyHash("x") + ` read:*
		}`, "not ending with one"},
		{`api /api/ark {
			key a ` + keyHash("x") + ` read:*
			key b ` + keyHash("x") + ` read:*
		}`, "given twice"},
	} {
		err := s.load("ark {\n\t\tstore bolt " + filepath.Join(t.TempDir(), "ark.db") + "\n\t\t" + c.api + "\n\t}")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.api, err, c.want)
		}
	}
	if got := s.get("/"); got.body != "first" {
		t.Errorf("the running config after the refusals: %d %q", got.status, got.body)
	}
}
