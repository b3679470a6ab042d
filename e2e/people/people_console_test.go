package people

import (
	"fmt"
	"net/http"
	"net/url"
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

// TestPeopleConsoleOffersWhatTheyMayDo: a person who may only read is
// offered no Mint, Retarget or Import, and is refused those pages with the
// reason; a person who may write under one shoulder is offered Mint for
// that shoulder's minter alone, and mints (issue 36, item 15).
func TestPeopleConsoleOffersWhatTheyMayDo(t *testing.T) {
	idp := startIdentityService(t, map[string][2]string{"tok-rita": {"rita", "readers"}, "tok-erin": {"erin", "curators"}})
	auth := `forward_auth /api/ark/* ` + idp.addr + ` {
			uri /verify
			copy_headers Remote-User Remote-Groups
		}`
	s := startPeopleSite(t, auth, `people header Remote-User groups Remote-Groups
				group readers read:ark:12345
				group curators write:ark:12345/x5 read:ark:12345`)
	rita, erin := []string{"Cookie", "idp=tok-rita"}, []string{"Cookie", "idp=tok-erin"}
	offers := func(body, name string) bool { return strings.Contains(body, `"/api/ark/ui/`+name+`"`) }

	home := s.call("GET", "/ui/", "", rita...)
	for _, name := range []string{"mint", "retarget", "import", "keys"} {
		if home.Status != http.StatusOK || offers(home.Body, name) {
			t.Errorf("rita's front page offers %s: %d\n%s", name, home.Status, home.Body)
		}
	}
	for name, reason := range map[string]string{
		"mint":     "person:rita may not mint under any shoulder of this site",
		"retarget": "person:rita may not write any identifier",
		"import":   "person:rita may not write any identifier",
	} {
		got := s.call("GET", "/ui/"+name, "", rita...)
		if got.Status != http.StatusForbidden || !strings.Contains(got.Body, reason) || offers(got.Body, name) {
			t.Errorf("rita opens %s: %d\n%s", name, got.Status, got.Body)
		}
	}

	home = s.call("GET", "/ui/", "", erin...)
	for _, name := range []string{"mint", "retarget", "import"} {
		if home.Status != http.StatusOK || !offers(home.Body, name) {
			t.Errorf("erin's front page does not offer %s: %d\n%s", name, home.Status, home.Body)
		}
	}
	page := s.call("GET", "/ui/mint", "", erin...)
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "<option>ark:12345/x5</option>") || strings.Contains(page.Body, "ark:12345/y7") {
		t.Errorf("erin's mint page, want the x5 minter alone: %d\n%s", page.Status, page.Body)
	}
	token := caddytest.CSRFValue.FindStringSubmatch(page.Body)
	if token == nil {
		t.Fatalf("erin's mint page has no form token:\n%s", page.Body)
	}
	form := url.Values{"csrf": {token[1]}, "shoulder": {"ark:12345/x5"}, "n": {"1"}}
	if got := s.call("POST", "/ui/mint", form.Encode(), append(erin, "Content-Type", "application/x-www-form-urlencoded")...); got.Status != http.StatusCreated {
		t.Errorf("erin mints under x5: %d\n%s", got.Status, got.Body)
	}
}
