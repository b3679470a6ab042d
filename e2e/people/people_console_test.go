package people

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// TestPeopleConsole: the console of a person signed in by the site's
// authentication says who they are and through which groups, skips the
// key sign-in, and its feed of changes filters by writer.
func TestPeopleConsole(t *testing.T) {
	idp := startIdentityService(t, map[string][2]string{"tok-erin": {"erin", "staff,curators"}})
	auth := `forward_auth /api/ark/* ` + idp.addr + ` {
			uri /verify
			copy_headers Remote-User Remote-Groups
		}`
	s := startPeopleSite(t, auth, `people header Remote-User groups Remote-Groups
				group curators write:ark:12345/x5 read:ark:12345`)
	erin := []string{"Cookie", "idp=tok-erin"}
	expect(t, "erin binds", s.call("PUT", "/id/ark:12345/x5e1", `{"target": "https://repo.example.org/e1"}`, erin...), http.StatusCreated, "")

	home := s.call("GET", "/ui/", "", erin...)
	for _, want := range []string{
		"Signed in as <strong>person:erin</strong> through the site",
		"Signed in as <strong>person:erin</strong> (through group <strong>curators</strong>), who may:",
		"<li><code>write:ark:12345/x5</code></li>",
	} {
		if home.Status != http.StatusOK || !strings.Contains(home.Body, want) {
			t.Errorf("the front page: %d, want %q in\n%s", home.Status, want, home.Body)
		}
	}
	if strings.Contains(home.Body, `action="/api/ark/ui/signout"`) {
		t.Error("the front page offers to sign a person out, which the console cannot do")
	}
	if got := s.call("GET", "/ui/signin", "", erin...); got.Status != http.StatusSeeOther || got.Header.Get("Location") != "/api/ark/ui/" {
		t.Errorf("the key sign-in page for a signed-in person: %d %s", got.Status, got.Header.Get("Location"))
	}

	feedOf := func(writer string) []string {
		got := s.call("GET", "/ui/changes?writer="+writer, "", erin...)
		if got.Status != http.StatusOK {
			t.Fatalf("the feed of %s: %d %s", writer, got.Status, got.Body)
		}
		return caddytest.ChangeFeed(got.Body)
	}
	if rows := feedOf("person:erin"); fmt.Sprint(rows) != fmt.Sprint([]string{"ark:12345/x5e1: bound to https://repo.example.org/e1 (302)"}) {
		t.Errorf("the feed of person:erin: %q", rows)
	}
	if rows := feedOf("person:someone"); len(rows) != 0 {
		t.Errorf("the feed of person:someone: %q, want none", rows)
	}
}
