package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A key or person who may only read is not offered what the API would
// refuse: no Edit, Withdraw or Bind on the identifier's page, and the edit
// and withdraw forms answer 403 saying why, before anything is filled in;
// a post made anyway is still refused.
func TestConsoleOffersNoFormToAReader(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	editor, reader := s.SignIn("editor"), s.SignIn("reader")
	if got := s.Call("PUT", "/id/ark:12345/x5r1", "editor", `{"target": "https://repo.example.org/r1"}`); got.Status != http.StatusCreated {
		t.Fatalf("bind: %d %s", got.Status, got.Body)
	}
	page := reader.Get("id/ark:12345/x5r1")
	if page.Status != http.StatusOK || strings.Contains(page.Body, "edit/ark:12345/x5r1") || strings.Contains(page.Body, "withdraw/ark:12345/x5r1") {
		t.Errorf("the reader's page of x5r1: %d\n%s", page.Status, page.Body)
	}
	if got := reader.Get("id/ark:12345/x5none"); strings.Contains(got.Body, "edit/ark:12345/x5none") {
		t.Errorf("the reader is offered to bind x5none:\n%s", got.Body)
	}
	for _, path := range []string{"edit/ark:12345/x5r1", "withdraw/ark:12345/x5r1", "edit/ark:12345/x5none", "edit/ark:/12345/x5-r1"} {
		got := reader.Get(path)
		if got.Status != http.StatusForbidden || !strings.Contains(got.Body, "reader may not write ark:12345/x5") || strings.Contains(got.Body, `method="post"`) && strings.Contains(got.Body, `name="target"`) {
			t.Errorf("the reader opens %s: %d\n%s", path, got.Status, got.Body)
		}
	}
	if got := editor.Get("edit/ark:12345/x5r1"); got.Status != http.StatusOK || !strings.Contains(got.Body, `name="target"`) {
		t.Errorf("the editor's edit form: %d\n%s", got.Status, got.Body)
	}
	form := url.Values{"csrf": {reader.Token("")}, "version": {"1"}, "target": {"https://elsewhere.example.org/"}, "status": {"302"}}
	if got := reader.Post("edit/ark:12345/x5r1", form); got.Status != http.StatusForbidden {
		t.Errorf("the reader posts an edit anyway: %d\n%s", got.Status, got.Body)
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/x5r1": "https://repo.example.org/r1"})
}

// A key that may only read is offered none of the pages that change
// identifiers whatever they are: no Mint, Retarget or Import in the
// menu, those pages answer 403 with the reason before a form is filled
// in, and a post made anyway changes nothing. A key that may write is
// offered them and uses them (issue 36, item 15).
func TestConsoleOffersNoChangesToAReader(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	editor, reader := s.SignIn("editor"), s.SignIn("reader")
	pages := []string{"mint", "retarget", "import"}
	offers := func(body, name string) bool {
		return strings.Contains(body, `"`+caddytest.ConsoleUI+name+`"`)
	}
	for _, at := range []string{"", "search", "changes", "id/ark:12345/x5r1"} {
		got := reader.Get(at)
		for _, name := range pages {
			if offers(got.Body, name) {
				t.Errorf("the reader's page %q offers %s:\n%s", at, name, got.Body)
			}
		}
		got = editor.Get(at)
		for _, name := range pages {
			if !offers(got.Body, name) {
				t.Errorf("the editor's page %q does not offer %s:\n%s", at, name, got.Body)
			}
		}
	}
	reasons := map[string]string{
		"mint":     "reader may not mint under any shoulder of this site",
		"retarget": "reader may not write any identifier",
		"import":   "reader may not write any identifier",
	}
	for _, name := range pages {
		got := reader.Get(name)
		if got.Status != http.StatusForbidden || !strings.Contains(got.Body, reasons[name]) || offers(got.Body, name) {
			t.Errorf("the reader opens %s: %d\n%s", name, got.Status, got.Body)
		}
	}

	token := reader.Token("")
	if got := reader.Post("mint", url.Values{"csrf": {token}, "shoulder": {"ark:12345/x5"}, "n": {"1"}}); got.Status != http.StatusForbidden {
		t.Errorf("the reader mints anyway: %d\n%s", got.Status, got.Body)
	}
	if got := reader.Post("retarget", url.Values{"csrf": {token}, "step": {"preview"}, "from": {"https://"}, "to": {"https://phish.example.org/"}}); got.Status != http.StatusForbidden {
		t.Errorf("the reader previews a retarget anyway: %d\n%s", got.Status, got.Body)
	}
	if got := reader.Post("undo", url.Values{"csrf": {token}, "batch": {"1"}}); got.Status != http.StatusForbidden {
		t.Errorf("the reader undoes anyway: %d\n%s", got.Status, got.Body)
	}
	if got := reader.Upload(token, "csv", "ids.csv", "ark:12345/x5imp,https://phish.example.org/\n"); got.Status != http.StatusForbidden {
		t.Errorf("the reader imports anyway: %d\n%s", got.Status, got.Body)
	}
	if got := s.Call("GET", "/changes", "editor", ""); got.Status != http.StatusOK || strings.Contains(got.Body, "ark:12345/") {
		t.Errorf("the store changed: %d %s", got.Status, got.Body)
	}

	// The editor uses them.
	if got := editor.Post("mint", url.Values{"csrf": {editor.Token("mint")}, "shoulder": {"ark:12345/y7"}, "n": {"1"}, "target": {"https://repo.example.org/{id}"}}); got.Status != http.StatusCreated {
		t.Errorf("the editor mints: %d\n%s", got.Status, got.Body)
	}
	if got := editor.Upload(editor.Token("import"), "csv", "ids.csv", "ark:12345/x5imp,https://repo.example.org/imp\n"); got.Status != http.StatusOK {
		t.Errorf("the editor imports: %d\n%s", got.Status, got.Body)
	}
	got := editor.Post("retarget", url.Values{"csrf": {editor.Token("retarget")}, "step": {"preview"}, "from": {"https://repo.example.org/"}, "to": {"https://new.example.org/"}})
	if got.Status != http.StatusOK || !strings.Contains(got.Body, "<strong>2</strong> identifiers") {
		t.Errorf("the editor previews a retarget: %d\n%s", got.Status, got.Body)
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/x5imp": "https://repo.example.org/imp"})
}

// A minter on a bare NAAN is offered to a key that may write that NAAN,
// as the API lets it mint there.
func TestConsoleOffersABareNAANsMinter(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui", "naan 23456", "minter ark:23456 .reeddeedk")
	s.Reload(strings.Replace(caddytest.APIKeys, "write:urn:isbn", "write:ark:23456", 1), "ui")
	editor := s.SignIn("editor")
	page := editor.Get("mint")
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "<option>ark:23456</option>") {
		t.Fatalf("the editor's mint page, want ark:23456 offered: %d\n%s", page.Status, page.Body)
	}
	got := editor.Post("mint", url.Values{"csrf": {editor.Token("mint")}, "shoulder": {"ark:23456"}, "n": {"1"}})
	if got.Status != http.StatusCreated || !strings.Contains(got.Body, "id/ark:23456/") {
		t.Errorf("the editor mints on ark:23456: %d\n%s", got.Status, got.Body)
	}
}
