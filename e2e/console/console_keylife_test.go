package console

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A key removed by a reload and added back, with the very same line, by
// another does not bring back the sessions signed in before it was
// removed (issue 28, item 8); a sign-in after it came back works, and a
// key that every reload kept keeps its sessions.
func TestConsoleRemovedKeySessionsStayEnded(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	x5 := s.SignIn("x5")
	editor := s.SignIn("editor")
	x5Cookie, x5Token := x5.Cookie(), x5.Token("")
	editorCookie := editor.Cookie()

	s.Reload(strings.Replace(caddytest.APIKeys, "key x5 %x5 write:ark:12345/x5", "", 1), "ui")
	s.ExpectSignedOut("a removed key's cookie", x5Cookie, x5Token)
	s.Reload(caddytest.APIKeys, "ui")
	s.ExpectSignedOut("the cookie of a key removed and added back", x5Cookie, x5Token)

	again := s.SignIn("x5")
	if got := s.WithCookie(http.MethodGet, "", again.Cookie(), nil); got.Status != http.StatusOK {
		t.Errorf("a sign-in after the key came back: %d", got.Status)
	}
	if got := s.WithCookie(http.MethodGet, "", editorCookie, nil); got.Status != http.StatusOK {
		t.Errorf("the editor's session, whose key both reloads kept: %d", got.Status)
	}
}
