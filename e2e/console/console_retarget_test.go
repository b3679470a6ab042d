package console

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// retargetForm is the form of a retarget step.
func retargetForm(token, step, from, to, prefix, confirm string) url.Values {
	return url.Values{"csrf": {token}, "step": {step}, "from": {from}, "to": {to}, "prefix": {prefix}, "token": {confirm}}
}

// previewToken finds the token of a preview's confirm form.
var previewToken = regexp.MustCompile(`name="token" value="([0-9a-f]+)"`)

func TestConsoleRetarget(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	var entries []string
	for i := range 25 {
		entries = append(entries, fmt.Sprintf(`{"id": "ark:12345/x5r%02d", "target": "https://old.example.org/r/%d"}`, i, i))
	}
	entries = append(entries, `{"id": "ark:12345/y7r", "target": "https://old.example.org/y7"}`)
	if got := s.Call("POST", "/import", "editor", `{"entries": [`+strings.Join(entries, ",")+`]}`); got.Status != http.StatusOK {
		t.Fatalf("import: %d %s", got.Status, got.Body)
	}
	u := s.SignIn("editor")
	token := u.Token("retarget")
	const from, to = "https://old.example.org/", "https://new.example.org/"

	got := u.Post("retarget", retargetForm(token, "preview", from, to, "ark:12345/x5", ""))
	if got.Status != http.StatusOK || !strings.Contains(got.Body, "This changes the targets of <strong>25</strong> identifiers; the first 20 are listed") || !strings.Contains(got.Body, "… and 5 more.") {
		t.Fatalf("preview: %d %s", got.Status, got.Body)
	}
	if !strings.Contains(got.Body, "<td><span class=\"cell-label\">Now: </span>https://old.example.org/r/0</td><td><span class=\"cell-label\">New: </span>https://new.example.org/r/0</td>") {
		t.Errorf("the preview does not show the first change: %s", got.Body)
	}
	confirm := previewToken.FindStringSubmatch(got.Body)
	if confirm == nil {
		t.Fatal("no confirm form")
	}
	if r := s.Lookup("ark:12345/x5r00"); r.Binding.Target != "https://old.example.org/r/0" {
		t.Fatalf("the preview changed a target: %s", r.Binding.Target)
	}

	// Someone changes one of them: the confirm of the old preview changes
	// nothing, and shows the new preview.
	s.Call("PUT", "/id/ark:12345/x5r03", "editor", `{"target": "https://elsewhere.example.org/3"}`)
	got = u.Post("retarget", retargetForm(token, "apply", from, to, "ark:12345/x5", confirm[1]))
	if got.Status != http.StatusPreconditionFailed || !strings.Contains(got.Body, "have changed since the preview") || !strings.Contains(got.Body, "<strong>24</strong> identifiers") {
		t.Fatalf("a stale confirm: %d %s", got.Status, got.Body)
	}
	if r := s.Lookup("ark:12345/x5r00"); r.Binding.Target != "https://old.example.org/r/0" {
		t.Fatalf("a stale confirm changed a target: %s", r.Binding.Target)
	}
	confirm = previewToken.FindStringSubmatch(got.Body)
	got = u.Post("retarget", retargetForm(token, "apply", from, to, "ark:12345/x5", confirm[1]))
	batch := regexp.MustCompile(`Changed 24 targets in batch (\d+)\.`).FindStringSubmatch(got.Body)
	if got.Status != http.StatusOK || batch == nil {
		t.Fatalf("confirming: %d %s", got.Status, got.Body)
	}
	for id, want := range map[string]string{
		"ark:12345/x5r00": "https://new.example.org/r/0",
		"ark:12345/x5r24": "https://new.example.org/r/24",
		"ark:12345/x5r03": "https://elsewhere.example.org/3",
		"ark:12345/y7r":   "https://old.example.org/y7", // not under the prefix
	} {
		if r := s.Lookup(id); r.Binding.Target != want || (strings.Contains(want, "new.") && r.Binding.By != "editor") {
			t.Errorf("after the retarget, %s: %s by %s, want %s", id, r.Binding.Target, r.Binding.By, want)
		}
	}
	if got := s.Get("/ark:12345/x5r07"); got.Location != "https://new.example.org/r/7" {
		t.Errorf("the next request for x5r07 goes to %s", got.Location)
	}

	// Undo, except what was changed again since.
	s.Call("PUT", "/id/ark:12345/x5r24", "editor", `{"target": "https://newer.example.org/24"}`)
	got = u.Post("undo", url.Values{"csrf": {token}, "batch": {batch[1]}})
	if got.Status != http.StatusOK || !strings.Contains(got.Body, "Undid batch "+batch[1]+": 23 targets restored.") || !strings.Contains(got.Body, ">ark:12345/x5r24</a>") {
		t.Fatalf("undo: %d %s", got.Status, got.Body)
	}
	for id, want := range map[string]string{"ark:12345/x5r00": "https://old.example.org/r/0", "ark:12345/x5r24": "https://newer.example.org/24"} {
		if r := s.Lookup(id); r.Binding.Target != want {
			t.Errorf("after the undo, %s: %s, want %s", id, r.Binding.Target, want)
		}
	}
}

func TestConsoleRetargetRefusals(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	s.Call("PUT", "/id/ark:12345/x5a", "editor", `{"target": "https://old.example.org/a"}`)
	s.Call("PUT", "/id/ark:12345/y7a", "editor", `{"target": "https://old.example.org/y7"}`)
	u := s.SignIn("editor")
	token := u.Token("retarget")
	for _, c := range []struct {
		what   string
		form   url.Values
		status int
		says   string
	}{
		{"a confirm without a preview", retargetForm(token, "apply", "https://old.example.org/", "https://new.example.org/", "", ""), http.StatusBadRequest, "Preview the change first"},
		{"no from", retargetForm(token, "preview", "", "https://new.example.org/", "", ""), http.StatusBadRequest, "give the start of the targets"},
		{"a result that is no target", retargetForm(token, "preview", "https://", "no scheme ", "", ""), http.StatusBadRequest, "ark:12345/x5a"},
		{"a bad prefix", retargetForm(token, "preview", "https://old.example.org/", "https://new.example.org/", "ark:", ""), http.StatusBadRequest, "prefix"},
	} {
		got := u.Post("retarget", c.form)
		if got.Status != c.status || !strings.Contains(got.Body, c.says) {
			t.Errorf("%s: %d, want %d saying %q: %s", c.what, got.Status, c.status, c.says, got.Body)
		}
	}
	if r := s.Lookup("ark:12345/x5a"); r.Binding.Version != 1 {
		t.Errorf("a refusal changed x5a: %+v", r.Binding)
	}

	// x5 changes what its scope covers only, without being told a prefix.
	x5 := s.SignIn("x5")
	got := x5.Post("retarget", retargetForm(x5.Token("retarget"), "preview", "https://old.example.org/", "https://new.example.org/", "", ""))
	if !strings.Contains(got.Body, "<strong>1</strong> identifier") || strings.Contains(got.Body, "y7a") {
		t.Errorf("x5's preview: %s", got.Body)
	}
	// The reader may change nothing, and is told so before a preview.
	reader := s.SignIn("reader")
	got = reader.Post("retarget", retargetForm(reader.Token(""), "preview", "https://old.example.org/", "https://new.example.org/", "", ""))
	if got.Status != http.StatusForbidden || !strings.Contains(got.Body, "reader may not write any identifier") {
		t.Errorf("the reader's preview: %d %s", got.Status, got.Body)
	}
}
