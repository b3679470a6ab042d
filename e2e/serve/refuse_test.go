package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

func TestRefusalsSayWhyInOneLine(t *testing.T) {
	s := caddytest.StartSite(t, `ark {
		naan 12345
		map ark:12345/x5wf6789 https://repo.example.org/x
		map ark:12345/g5h6j7 410
		max_length 300
	}`)
	long := "/ark:12345/" + strings.Repeat("b", 400)
	for p, want := range map[string]struct {
		status int
		reason string
	}{
		"/ark:12345": {400, "no Name"},
		// Go's HTTP server refuses bad percent-encoding itself, before Caddy.
		"/ark:12345/x%G1":              {400, ""},
		"/ark:12345/x%0Ay":             {400, "control character"},
		"/ark:12345/x%E2%80%AEy":       {400, "bidirectional"},
		"/ark:99999/x5wf6789":          {400, "99999"},
		"/ark:12345/a,b":               {400, "not allowed"},
		"/ark:12.345/x":                {400, "NAAN"},
		"/urn:x:y":                     {400, "NID"},
		"/urn:example:a123?x":          {400, `"+" or "="`},
		"/urn:example:":                {400, "NSS"},
		long:                           {414, "longer than 300"},
		"/ark:12345/nothing-here":      {404, "ark:12345/nothinghere is not assigned here"},
		"/urn:example:unknown":         {404, "urn:example:unknown is not assigned here"},
		"/ark:12345/g5h6j7":            {410, "withdrawn"},
		"/ark:12345/x5wf6789/%2E%2E/x": {400, `would start with "."`},
	} {
		got := s.Get(p)
		if got.Status != want.status {
			t.Errorf("%s: got %d %q, want %d", p, got.Status, got.Body, want.status)
			continue
		}
		if want.reason == "" {
			continue
		}
		if !strings.Contains(got.Body, want.reason) || strings.Count(got.Body, "\n") != 1 {
			t.Errorf("%s: body %q should be one line mentioning %q", p, got.Body, want.reason)
		}
		if ct := got.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", p, ct)
		}
	}
}

func TestLengthLimitNeverRefusesShortARKs(t *testing.T) {
	s := caddytest.StartSite(t, `ark {
		naan 12345
		max_length 10
		foreign 404
	}`)
	// 255 code points plus an inflection may never be refused for length.
	ark255 := "ark:12345/" + strings.Repeat("b", 255-len("ark:12345/"))
	for _, q := range []string{"", "?", "??", "?info"} {
		if got := s.Get("/" + ark255 + q); got.Status == http.StatusRequestURITooLong {
			t.Errorf("255 code points%s refused: %q", q, got.Body)
		}
	}
	if got := s.Get("/" + ark255 + "b"); got.Status != http.StatusRequestURITooLong {
		t.Errorf("256 code points with max_length 10 (counts as 255): got %d", got.Status)
	}
	def := caddytest.StartSite(t, `ark {
		naan 12345
		foreign 404
	}`)
	if got := def.Get("/ark:12345/" + strings.Repeat("b", 1000)); got.Status == http.StatusRequestURITooLong {
		t.Errorf("the default limit refused 1010 code points")
	}
	if got := def.Get("/ark:12345/" + strings.Repeat("b", 1100)); got.Status != http.StatusRequestURITooLong {
		t.Errorf("the default limit took 1110 code points: %d", got.Status)
	}
}
