package console

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// The console's forms write through the API as the signed-in key, so
// they keep its rules (issue 20): no hidden file in place and only under
// in_place, by the edit, mint and import forms; no permanent redirect;
// nothing a table assigns; an undo of a retarget only of what PUT would
// bind now, and only while the key's scope covers it.
func TestConsoleFormsKeepTheAPIsRules(t *testing.T) {
	const inPlace = "ui\n\t\t\tin_place /objects/ /media/"
	s := caddytest.StartConsoleSite(t, inPlace)
	editor := s.SignIn("editor")
	token := editor.Token("")
	const hidden = "served in place may not have a path segment starting with"
	edit := func(target, status string) url.Values {
		return url.Values{"csrf": {token}, "version": {"0"}, "target": {target}, "status": {status}, "passthrough": {"on"}}
	}
	for _, c := range []struct {
		what   string
		id     string
		form   url.Values
		status int
		says   string
	}{
		{"a hidden file in place", "ark:12345/x5e", edit("/.env", "200"), http.StatusBadRequest, hidden},
		{"an encoded hidden file in place", "ark:12345/x5g", edit("/objects/%2e%2e/.git/config", "200"), http.StatusBadRequest, hidden},
		{"a path outside in_place", "ark:12345/x5s", edit("/secret.txt", "200"), http.StatusBadRequest, "in_place /objects/ /media/"},
		{"a permanent redirect", "ark:12345/x5p", edit("https://new.example.org/", "301"), http.StatusBadRequest, "permanent redirects"},
		{"a 410 without a reason", "ark:12345/x5w", edit("https://new.example.org/", "410"), http.StatusBadRequest, "withdraw"},
		{"what a table assigns", "ark:12345/t1", edit("https://new.example.org/", "302"), http.StatusConflict, "assigned by"},
	} {
		got := editor.Post("edit/"+c.id, c.form)
		if got.Status != c.status || !strings.Contains(got.Body, c.says) {
			t.Errorf("editing %s: %d, want %d saying %q: %s", c.what, got.Status, c.status, c.says, got.Body)
		}
		if c.id != "ark:12345/t1" {
			s.ExpectUnbound(c.id)
		}
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/t1": "https://table.example.org/t1"})
	got := editor.Post("mint", url.Values{"csrf": {token}, "shoulder": {"ark:12345/x5"}, "n": {"1"}, "target": {"/.git/config"}})
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, hidden) {
		t.Errorf("minting onto /.git/config: %d %s", got.Status, got.Body)
	}
	got = editor.Upload(editor.Token("import"), "json", "t.json", `{"entries": [{"id": "ark:12345/x5i", "target": "/%2Eenv"}]}`)
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, hidden) {
		t.Errorf("importing /%%2Eenv in place: %d %s", got.Status, got.Body)
	}
	s.ExpectUnbound("ark:12345/x5i")

	// A retarget through the console, undone once in_place has changed.
	if got := s.Call("PUT", "/id/ark:12345/x5m", "editor", `{"target": "/media/m.txt"}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.Status, got.Body)
	}
	x5 := s.SignIn("x5")
	x5Token := x5.Token("retarget")
	got = x5.Post("retarget", retargetForm(x5Token, "preview", "/media/", "/objects/", "", ""))
	confirm := previewToken.FindStringSubmatch(got.Body)
	if confirm == nil {
		t.Fatalf("preview: %d %s", got.Status, got.Body)
	}
	got = x5.Post("retarget", retargetForm(x5Token, "apply", "/media/", "/objects/", "", confirm[1]))
	batch := regexp.MustCompile(`Changed 1 target in batch (\d+)\.`).FindStringSubmatch(got.Body)
	if batch == nil {
		t.Fatalf("confirming: %d %s", got.Status, got.Body)
	}
	s.Reload(caddytest.APIKeys, "ui\n\t\t\tin_place /objects/")
	got = x5.Post("undo", url.Values{"csrf": {x5Token}, "batch": {batch[1]}})
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "in_place /objects/") || !strings.Contains(got.Body, "nothing was undone") {
		t.Errorf("undo onto a target in_place no longer covers: %d %s", got.Status, got.Body)
	}
	if b := s.Lookup("ark:12345/x5m").Binding; b.Target != "/objects/m.txt" {
		t.Errorf("ark:12345/x5m after the refused undo: %q", b.Target)
	}
	// x5, scoped to y7 now, may not undo its own batch any more.
	s.Reload(strings.Replace(caddytest.APIKeys, "write:ark:12345/x5", "write:ark:12345/y7", 1), inPlace)
	got = x5.Post("undo", url.Values{"csrf": {x5Token}, "batch": {batch[1]}})
	if got.Status != http.StatusForbidden || !strings.Contains(got.Body, "may not write ark:12345/x5m") {
		t.Errorf("undo once the key's scope no longer covers it: %d %s", got.Status, got.Body)
	}
	if b := s.Lookup("ark:12345/x5m").Binding; b.Target != "/objects/m.txt" {
		t.Errorf("ark:12345/x5m after the refused undo: %q", b.Target)
	}
}
