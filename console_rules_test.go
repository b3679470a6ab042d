package ark

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// The console's forms write through the API as the signed-in key, so
// they keep its rules (issue 20): no hidden file in place and only under
// in_place, by the edit, mint and import forms; no permanent redirect;
// nothing a table assigns; an undo of a retarget only of what PUT would
// bind now, and only while the key's scope covers it.
func TestConsoleFormsKeepTheAPIsRules(t *testing.T) {
	const inPlace = "ui\n\t\t\tin_place /objects/ /media/"
	s := startConsoleSite(t, inPlace)
	editor := s.signIn("editor")
	token := editor.token("")
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
		got := editor.post("edit/"+c.id, c.form)
		if got.status != c.status || !strings.Contains(got.body, c.says) {
			t.Errorf("editing %s: %d, want %d saying %q: %s", c.what, got.status, c.status, c.says, got.body)
		}
		if c.id != "ark:12345/t1" {
			s.expectUnbound(c.id)
		}
	}
	s.expectRedirects(map[string]string{"/ark:12345/t1": "https://table.example.org/t1"})
	got := editor.post("mint", url.Values{"csrf": {token}, "shoulder": {"ark:12345/x5"}, "n": {"1"}, "target": {"/.git/config"}})
	if got.status != http.StatusBadRequest || !strings.Contains(got.body, hidden) {
		t.Errorf("minting onto /.git/config: %d %s", got.status, got.body)
	}
	got = editor.upload(editor.token("import"), "json", "t.json", `{"entries": [{"id": "ark:12345/x5i", "target": "/%2Eenv"}]}`)
	if got.status != http.StatusBadRequest || !strings.Contains(got.body, hidden) {
		t.Errorf("importing /%%2Eenv in place: %d %s", got.status, got.body)
	}
	s.expectUnbound("ark:12345/x5i")

	// A retarget through the console, undone once in_place has changed.
	if got := s.call("PUT", "/id/ark:12345/x5m", "editor", `{"target": "/media/m.txt"}`); got.status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.status, got.body)
	}
	x5 := s.signIn("x5")
	x5Token := x5.token("retarget")
	got = x5.post("retarget", retargetForm(x5Token, "preview", "/media/", "/objects/", "", ""))
	confirm := previewToken.FindStringSubmatch(got.body)
	if confirm == nil {
		t.Fatalf("preview: %d %s", got.status, got.body)
	}
	got = x5.post("retarget", retargetForm(x5Token, "apply", "/media/", "/objects/", "", confirm[1]))
	batch := regexp.MustCompile(`Changed 1 target in batch (\d+)\.`).FindStringSubmatch(got.body)
	if batch == nil {
		t.Fatalf("confirming: %d %s", got.status, got.body)
	}
	s.reload(apiKeys, "ui\n\t\t\tin_place /objects/")
	got = x5.post("undo", url.Values{"csrf": {x5Token}, "batch": {batch[1]}})
	if got.status != http.StatusBadRequest || !strings.Contains(got.body, "in_place /objects/") || !strings.Contains(got.body, "nothing was undone") {
		t.Errorf("undo onto a target in_place no longer covers: %d %s", got.status, got.body)
	}
	if b := s.lookup("ark:12345/x5m").Binding; b.Target != "/objects/m.txt" {
		t.Errorf("ark:12345/x5m after the refused undo: %q", b.Target)
	}
	// x5, scoped to y7 now, may not undo its own batch any more.
	s.reload(strings.Replace(apiKeys, "write:ark:12345/x5", "write:ark:12345/y7", 1), inPlace)
	got = x5.post("undo", url.Values{"csrf": {x5Token}, "batch": {batch[1]}})
	if got.status != http.StatusForbidden || !strings.Contains(got.body, "may not write ark:12345/x5m") {
		t.Errorf("undo once the key's scope no longer covers it: %d %s", got.status, got.body)
	}
	if b := s.lookup("ark:12345/x5m").Binding; b.Target != "/objects/m.txt" {
		t.Errorf("ark:12345/x5m after the refused undo: %q", b.Target)
	}
}
