package metadata

import (
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// Caddy's header directive may rewrite the Link and Vary headers of the
// answers in place (a deferred replace): that rewrites one answer, never
// the headers ark keeps for the next ones, so the same request gets the
// same headers however often it is sent.
func TestHeaderDirectiveRewritesOneAnswerOnly(t *testing.T) {
	s := caddytest.StartSite(t, `
	header >Link cite-as "cite-as related"
	header >Vary Accept "Accept, Origin"
	ark {
		naan 12345
		map ark:12345/rich https://repo.example.org/rich {
			what "A record"
		}
		map ark:12345/plain https://repo.example.org/plain
	}`)
	for _, path := range []string{"/ark:12345/rich", "/ark:12345/plain"} {
		first := s.Get(path)
		for range 20 {
			got := s.Get(path)
			if got.Header.Get("Link") != first.Header.Get("Link") || got.Header.Get("Vary") != first.Header.Get("Vary") {
				t.Fatalf("%s: Link %q and Vary %q after Link %q and Vary %q", path,
					got.Header.Get("Link"), got.Header.Get("Vary"), first.Header.Get("Link"), first.Header.Get("Vary"))
			}
		}
	}
}
