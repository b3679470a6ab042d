package serve

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A template with an unknown {http.ark.*} placeholder is refused at load
// with its line, instead of expanding to nothing (issue 10, item 5); the
// running config keeps serving.
func TestUnknownArkPlaceholderIsRefusedAtLoad(t *testing.T) {
	s := caddytest.StartSite(t, `ark {
		map ark:12345/x5 https://repo.example.org/x5
	}`)
	for _, name := range []string{"blah", "target", "Blade"} {
		err := s.Load("ark {\n\t\tshoulder ark:12345/t3 https://repo.example.org/{http.ark." + name + "}\n\t}")
		if err == nil || !strings.Contains(err.Error(), "unknown placeholder {http.ark."+name+"}") {
			t.Errorf("{http.ark.%s}: got %v", name, err)
		}
	}
	if err := s.Load("ark {\n\t\tshoulder ark:12345/t3 https://repo.example.org/{http.ark.blade}/{http.request.host}\n\t}"); err != nil {
		t.Errorf("known placeholders: %v", err)
	}
}

// {http.ark.outcome} says the answer given, also in a header that is set
// as the answer is written: invalid for an identifier refused after it
// resolved (a template that would expand to an empty blade), metadata for
// ?info.
func TestOutcomePlaceholderSaysTheAnswer(t *testing.T) {
	s := caddytest.StartSite(t, `header >X-Outcome {http.ark.outcome}
	ark {
		shoulder ark:12345/t3 https://repo.example.org/t/{http.ark.blade}.html
	}`)
	for path, want := range map[string]string{
		"/ark:12345/t3x7":      "redirect",
		"/ark:12345/t3":        "invalid",
		"/ark:12345/t3x7?info": "metadata",
	} {
		got := s.Get(path)
		if outcome := got.Header.Get("X-Outcome"); outcome != want {
			t.Errorf("%s: %d, X-Outcome %q, want %q", path, got.Status, outcome, want)
		}
	}
}
