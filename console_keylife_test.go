package ark

import (
	"net/http"
	"strings"
	"testing"
)

// A key removed by a reload and added back, with the very same line, by
// another does not bring back the sessions signed in before it was
// removed (issue 28, item 8); a sign-in after it came back works, and a
// key that every reload kept keeps its sessions.
func TestConsoleRemovedKeySessionsStayEnded(t *testing.T) {
	s := startConsoleSite(t, "ui")
	x5 := s.signIn("x5")
	editor := s.signIn("editor")
	x5Cookie, x5Token := x5.cookie(), x5.token("")
	editorCookie := editor.cookie()

	s.reload(strings.Replace(apiKeys, "key x5 %x5 write:ark:12345/x5", "", 1), "ui")
	s.expectSignedOut("a removed key's cookie", x5Cookie, x5Token)
	s.reload(apiKeys, "ui")
	s.expectSignedOut("the cookie of a key removed and added back", x5Cookie, x5Token)

	again := s.signIn("x5")
	if got := s.withCookie(http.MethodGet, "", again.cookie(), nil); got.status != http.StatusOK {
		t.Errorf("a sign-in after the key came back: %d", got.status)
	}
	if got := s.withCookie(http.MethodGet, "", editorCookie, nil); got.status != http.StatusOK {
		t.Errorf("the editor's session, whose key both reloads kept: %d", got.status)
	}
}
