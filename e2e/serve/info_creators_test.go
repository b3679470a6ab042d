package serve

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// On ?info's HTML page, a who's ORCID iDs and ROR IDs are links to their
// registries, with the text as written; nothing else in who becomes a
// link, whatever its brackets hold.
func TestInfoPageLinksORCIDAndROR(t *testing.T) {
	const who = "Curie, Marie <0000-0002-1825-0097>; Doe, Jane <https://orcid.org/0000-0001-5109-3700>; " +
		"Example Museum <https://ror.org/05gq02987>; Mallory <javascript:alert(1)>; Eve <https://evil.example/x>; <b>bold</b>"
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/cr1", Target: "https://repo.example.org/cr1", Meta: map[string]string{"who": who}}})
	s := caddytest.StartSite(t, `ark {
		naan 12345
		table `+tablePath+`
	}`)
	page := s.Do(http.MethodGet, "/ark:12345/cr1?info", caddytest.AcceptHTML)
	if page.Status != 200 {
		t.Fatalf("?info: %d %s", page.Status, page.Body)
	}
	text, links := pageText(t, page.Body)
	for _, want := range []string{"https://orcid.org/0000-0002-1825-0097", "https://orcid.org/0000-0001-5109-3700", "https://ror.org/05gq02987"} {
		if !slices.Contains(links, want) {
			t.Errorf("no link to %s among %q", want, links)
		}
	}
	for _, l := range links {
		if l == "javascript:alert(1)" || l == "https://evil.example/x" || l == "#ZgotmplZ" {
			t.Errorf("a link to %q", l)
		}
	}
	if !strings.Contains(text, "who"+who+" what") {
		t.Errorf("the who reads otherwise than written:\n%s", text)
	}
}
