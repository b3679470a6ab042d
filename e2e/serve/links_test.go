package serve

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// Every answer for a resolved ARK links to its metadata (?info among its
// describedby links) and names its canonical URL (cite-as); a URN's,
// which has no ?info, names it when served in place; other answers link
// to nothing.
func TestLinkHeadersOnEveryAnswerKind(t *testing.T) {
	s := infoSite(t)
	for p, want := range map[string]struct {
		status int
		key    string // "" for no describedby
		citeAs bool
	}{
		"/ark:12345/x5-wf6789":          {200, "ark:12345/x5wf6789", true},
		"/ark:12345/b2c4d6/sub/s4.html": {200, "ark:12345/b2c4d6/sub/s4.html", true},
		"/ark:12345/x5efgh":             {303, "ark:12345/x5efgh", true},
		"/ark:12345/k8m2n4?page=2":      {307, "ark:12345/k8m2n4", true},
		"/ark:12345/t3zq81":             {302, "ark:12345/t3zq81", true},
		"/ark:12345/g5h6j7":             {410, "ark:12345/g5h6j7", true},
		"/ark:12345/nothing":            {404, "", false},
		"/ark:99166/w66d60p2":           {302, "", false},
		"/ark:12345":                    {400, "", false},
	} {
		got := s.Get(p)
		l := caddytest.Links(got)
		if got.Status != want.status {
			t.Errorf("%s: got %d, want %d", p, got.Status, want.status)
		}
		switch {
		case want.key == "" && len(got.Header.Values("Link")) != 0:
			t.Errorf("%s: unexpected Link %q", p, got.Header.Values("Link"))
		case want.key != "" && (len(l["describedby"]) == 0 || l["describedby"][0] != s.Base+"/"+want.key+"?info"):
			t.Errorf("%s: Link %q, want describedby %s", p, got.Header.Values("Link"), s.Base+"/"+want.key+"?info")
		}
		if want.citeAs != (len(l["cite-as"]) == 1 && l["cite-as"][0] == s.Base+"/"+want.key) {
			t.Errorf("%s: Link %q, want cite-as %v", p, got.Header.Values("Link"), want.citeAs)
		}
		if d := l["describedby"]; len(d) > 0 {
			if info := s.Get(strings.TrimPrefix(d[0], s.Base)); info.Status != 200 {
				t.Errorf("%s: its describedby %s answered %d %q", p, d[0], info.Status, info.Body)
			}
		}
	}
	// URNs have no ?info (a "?" must be followed by "+" or "=", RFC 8141):
	// no describedby, but a URN served in place is still cited by its URL.
	urn := caddytest.Links(s.Get("/URN:NBN:de:101-2024"))
	if len(urn["describedby"]) != 0 || len(urn["cite-as"]) != 1 || urn["cite-as"][0] != s.Base+"/urn:nbn:de:101-2024" {
		t.Errorf("URN in place: Link %v", urn)
	}
	if got := s.Get("/urn:nbn:de:101-2024?info"); got.Status != 400 {
		t.Errorf("URN ?info: got %d %q, want 400", got.Status, got.Body)
	}
}
