package metadata

import (
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// Only an ARK served in place by a landing page is typed schema.org
// AboutPage: one served by content of its own (a text or CSV file) is
// not, with or without metadata, in its Link header and its linkset, from
// the table or from a template.
func TestAboutPageOnlyForLandingPages(t *testing.T) {
	tablePath := testkit.WriteTable(t, []table.Entry{
		{ID: "ark:12345/lp1", Target: "/objects/x5wf6789.html"},
		{ID: "ark:12345/lp3", Target: "/objects/x5noext"},
		{ID: "ark:12345/lp4", Target: "/objects/thesis.html", Meta: map[string]string{"what": "A thesis"}},
		{ID: "ark:12345/ct1", Target: "/in.txt"},
		{ID: "ark:12345/ct2", Target: "/in.txt", Meta: map[string]string{"what": "A text", "type": "Dataset"}},
	})
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		table `+tablePath+`
		shoulder ark:12345/in /{http.ark.name}.txt
		shoulder ark:12345/x5 /objects/{http.ark.name}.html
	}
	file_server`)
	for _, c := range []struct {
		path    string
		landing bool
	}{{"/ark:12345/lp1", true}, {"/ark:12345/lp3", true}, {"/ark:12345/lp4", true},
		{"/ark:12345/ct1", false}, {"/ark:12345/ct2", false}, {"/ark:12345/in", false}, {"/ark:12345/x5wf6789", true}} {
		got := s.Get(c.path)
		if got.Status != 200 {
			t.Fatalf("%s: %d %s %s", c.path, got.Status, got.Header.Get("Location"), got.Body)
		}
		typed := slices.ContainsFunc(withRel(parsedLinks(t, got), "type"), func(l testkit.WebLink) bool { return l.Target == "https://schema.org/AboutPage" })
		if typed != c.landing {
			t.Errorf("%s (%s): typed AboutPage %v, want %v", c.path, got.Header.Get("Content-Type"), typed, c.landing)
		}
		linkset := s.Get(c.path + "?info=linkset-json")
		if strings.Contains(linkset.Body, "https://schema.org/AboutPage") != c.landing {
			t.Errorf("%s: linkset types AboutPage %v, want %v:\n%s", c.path, !c.landing, c.landing, linkset.Body)
		}
	}
}
