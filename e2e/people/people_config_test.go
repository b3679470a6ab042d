package people

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// TestPeopleConfigRefused: a bad people, person or group line is refused
// at load, naming the file's line where the Caddyfile has one, and the
// running config keeps serving.
func TestPeopleConfigRefused(t *testing.T) {
	s := caddytest.StartSite(t, `respond "first" 200`)
	for _, c := range []struct{ api, want string }{
		{`api /api/ark {
			people basic_auth
			person alice delete:ark:12345
		}`, `api: person alice: scope "delete:ark:12345": write read:<prefix> or write:<prefix>, such as write:ark:12345/x5, or admin, at `},
		{`api /api/ark {
			people basic_auth
			person alice
		}`, "api: person: want <name> <scope>..., got 1 arguments, at "},
		{`api /api/ark {
			people oauth
			person alice read:*
		}`, `api: people: want basic_auth, or header <user-header> [groups <groups-header>], got "oauth", at `},
		{`api /api/ark {
			person alice read:*
		}`, "person or group without people"},
		{`api /api/ark {
			people basic_auth
		}`, "nobody is given access"},
		{`api /api/ark {
			people basic_auth
			group staff read:*
		}`, "only people header with groups"},
		{`api /api/ark {
			people header Remote-User
			group staff read:*
		}`, "add groups <groups-header>"},
		{`api /api/ark {
			people basic_auth
			person alice read:*
			person alice write:*
		}`, "person alice: given twice"},
		{`api /api/ark {
			key person:alice ` + caddytest.KeyHash("x") + ` read:*
		}`, "a key's name may not start with person:"},
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
