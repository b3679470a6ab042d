package serve

import (
	"net/http"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/resolve"
)

// An identifier that resolves in place to a file that does not exist is
// counted and logged as what it is, a missing target naming the identifier
// and the target, not as served in place (issue 10, item 4); with no
// handler after ark to serve it, the answer is a 500, logged as such, not
// an empty 200. A missing file gets a 404 with a one-line reason, as every
// other refusal does.
func TestMissingTargetsAreLoggedAndCounted(t *testing.T) {
	s := caddytest.StartOpsSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	handle /ark:12345/n* {
		ark {
			map ark:12345/n1 /nowhere/
		}
	}
	handle {
		ark {
			map ark:12345/d1 /dir/
			shoulder ark:12345/t3 /objects/{http.ark.blade}.html
		}
		file_server
	}`)
	missing := s.Metrics()[caddytest.Resolutions(resolve.OutcomeMissing)]
	inPlace := s.Metrics()[caddytest.Resolutions(resolve.OutcomeInPlace)]
	for p, status := range map[string]int{
		"/ark:12345/d1/nope.html":   http.StatusNotFound,
		"/ark:12345/t3gone":         http.StatusNotFound,
		"/ark:12345/n1/":            http.StatusInternalServerError,
		"/ark:12345/d1/sub/s4.html": http.StatusOK,
	} {
		if got := s.Get(p); got.Status != status {
			t.Errorf("%s: got %d, want %d", p, got.Status, status)
		}
	}
	if got := s.Get("/ark:12345/t3gone"); got.Body != "404 Not Found: ark:12345/t3gone is assigned here, but what it resolves to is missing\n" {
		t.Errorf("a missing target's answer: %q, want the one-line reason", got.Body)
	}
	if got := s.Metrics()[caddytest.Resolutions(resolve.OutcomeMissing)] - missing; got != 4 {
		t.Errorf("missing_target counted %v times, want 4", got)
	}
	if got := s.Metrics()[caddytest.Resolutions(resolve.OutcomeInPlace)] - inPlace; got != 1 {
		t.Errorf("in_place counted %v times, want 1", got)
	}
	// Missing targets are a kind of message that requests repeat: the
	// first is written, the others within 5s are summarised later
	// (TestOutageLogsStayReadable).
	want := map[string]string{"ark:12345/d1/nope.html": "/dir/nope.html", "ark:12345/t3gone": "/objects/gone.html"}
	warned := caddytest.LogEntries(t, s.Log, "identifier resolved to a missing target")
	if len(warned) != 1 || want[warned[0]["id"].(string)] != warned[0]["target"] {
		t.Errorf("missing targets logged as %v, want one line naming an identifier and its target", warned)
	}
	if len(caddytest.LogEntries(t, s.Log, "no handler after ark served an in-place target: add file_server, reverse_proxy or another handler after ark")) != 1 {
		t.Errorf("the in-place target with nothing to serve it was not logged")
	}
}
