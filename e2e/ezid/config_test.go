package ezid

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// TestEZIDConfigRefused: a bad ezid line is refused at load with its
// place in the Caddyfile, and the running config keeps serving.
func TestEZIDConfigRefused(t *testing.T) {
	s := caddytest.StartSite(t, `respond "first" 200`)
	for _, c := range []struct{ ezid, want string }{
		{"ezid ezid", `api: ezid "ezid": give no path (the site's root) or one such as /ezid`},
		{"ezid /ezid/", `api: ezid "/ezid/": give no path`},
		{"ezid /ark:12345", `api: ezid "/ark:12345": give no path`},
		{"ezid /a /b", `api: ezid: want at most one path, got "/b" too, at `},
		{"ezid {\n\t\t\t\tsession 1s\n\t\t\t}", `api: ezid: session: "1s" is not a length of time of 1m or more, such as 168h, at `},
		{"ezid {\n\t\t\t\tsesion 1h\n\t\t\t}", `api: ezid: unknown subdirective "sesion"`},
		{"ezid\n\t\t\tezid /ezid", "api: ezid: given twice, at "},
		{"ezid {\n\t\t\t\tsecret too-short\n\t\t\t}", "api: ezid: secret must be at least 16 bytes long, at "},
		{"ezid {\n\t\t\t\tsecret\n\t\t\t}", "wrong argument count"},
	} {
		err := s.Load("ark {\n\t\tstore bolt " + filepath.Join(t.TempDir(), "ark.db") + "\n\t\tapi /api/ark {\n\t\t\tkey admin " +
			caddytest.KeyHash("x") + " admin\n\t\t\t" + c.ezid + "\n\t\t}\n\t}")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.ezid, err, c.want)
		}
		if err != nil && !strings.Contains(err.Error(), "Caddyfile:") {
			t.Errorf("%s: %v does not name the Caddyfile's line", c.ezid, err)
		}
	}
	if got := s.Get("/"); got.Body != "first" {
		t.Errorf("the running config after the refusals: %d %q", got.Status, got.Body)
	}
	// A secret that a placeholder makes too short is refused as the
	// configuration is provisioned.
	t.Setenv("EZID_SHORT_SECRET", "short")
	err := s.Load("ark {\n\t\tstore bolt " + filepath.Join(t.TempDir(), "ark.db") + "\n\t\tapi /api/ark {\n\t\t\tkey admin " +
		caddytest.KeyHash("x") + " admin\n\t\t\tezid {\n\t\t\t\tsecret {env.EZID_SHORT_SECRET}\n\t\t\t}\n\t\t}\n\t}")
	if err == nil || !strings.Contains(err.Error(), "api: ezid: secret must be at least 16 bytes long, is 5") {
		t.Errorf("a secret of 5 bytes from the environment: %v", err)
	}
	// session in range is taken.
	if err := s.Load("ark {\n\t\tstore bolt " + filepath.Join(t.TempDir(), "ark.db") + "\n\t\tapi /api/ark {\n\t\t\tkey admin " +
		caddytest.KeyHash("x") + " admin\n\t\t\tezid /ezid {\n\t\t\t\tsession 8h\n\t\t\t}\n\t\t}\n\t}"); err != nil {
		t.Errorf("ezid /ezid { session 8h }: %v", err)
	}
}
