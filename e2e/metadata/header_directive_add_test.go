package metadata

import (
	"slices"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// Caddy's header directive may add to an answer's Link and Vary headers
// once ark has set them (deferred): each gets the value added, and the
// answer's other headers keep theirs. With signposting on and off, on a
// redirect, whose Location ark sets too.
func TestDeferredHeaderAddsReachTheirHeaderOnly(t *testing.T) {
	for _, signposting := range []string{"", "signposting off"} {
		s := caddytest.StartSite(t, `
	header {
		+Link "<https://example.org/terms>; rel=\"terms-of-service\""
		+Vary Origin
		defer
	}
	ark {
		naan 12345
		`+signposting+`
		map ark:12345/plain https://repo.example.org/plain
	}`)
		for range 3 {
			got := s.Get("/ark:12345/plain")
			if got.Status != 302 || got.Location != "https://repo.example.org/plain" {
				t.Fatalf("%q: %d, Location %q", signposting, got.Status, got.Location)
			}
			if vary := got.Header.Values("Vary"); !slices.Equal(vary, []string{"Accept", "Origin"}) {
				t.Errorf("%q: Vary %q, want Accept then Origin", signposting, vary)
			}
			links := parsedLinks(t, got)
			terms, described := withRel(links, "terms-of-service"), withRel(links, "describedby")
			if len(terms) != 1 || terms[0].Target != "https://example.org/terms" || len(described) == 0 ||
				described[0].Target != s.Base+"/ark:12345/plain?info" {
				t.Errorf("%q: Link %q", signposting, got.Header.Values("Link"))
			}
		}
	}
}
