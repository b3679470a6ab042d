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
