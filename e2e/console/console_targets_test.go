package console

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

func TestConsoleShowsTheTargetCheck(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/here" {
			w.Write([]byte("<!doctype html><title>Here</title><p>The map."))
			return
		}
		http.NotFound(w, r)
	}))
	defer origin.Close()
	s := caddytest.StartConsoleSite(t, "ui", "targets_check {\n\t\t\tinterval 1s\n\t\t\tallow_private\n\t\t}")
	s.Call("PUT", "/id/ark:12345/x5here", "editor", `{"target": "`+origin.URL+`/here"}`)
	s.Call("PUT", "/id/ark:12345/x5lost", "editor", `{"target": "`+origin.URL+`/lost"}`)
	editor := s.SignIn("editor")
	// The failing target is checked again every third of a second
	// (interval 1s, 3 failures make it broken): its count goes on.
	for id, want := range map[string]*regexp.Regexp{
		"ark:12345/x5here": regexp.MustCompile(`<dt>Target check</dt><dd><strong>ok</strong> \(200\), checked `),
		"ark:12345/x5lost": regexp.MustCompile(`<dt>Target check</dt><dd><strong>(failing|broken)</strong> \(404, \d+ failed in a row\), checked `),
	} {
		testkit.WaitFor(t, "the check of "+id+"'s target", func() bool {
			return want.MatchString(editor.Get("id/" + id).Body)
		})
	}
}

func TestConsoleWithoutTargetChecks(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	s.Call("PUT", "/id/ark:12345/x5here", "editor", `{"target": "https://old.example.org/here"}`)
	if got := s.SignIn("editor").Get("id/ark:12345/x5here"); got.Status != http.StatusOK || strings.Contains(got.Body, "Target check") {
		t.Errorf("a target never checked: %d %s", got.Status, got.Body)
	}
}
