package e2e

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
