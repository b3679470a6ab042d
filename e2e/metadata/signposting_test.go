package metadata

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// signpostSite serves ARKs of every caddytest.Answer kind, with and without
// metadata, under metadata defaults for their NAAN.
func signpostSite(t *testing.T, extra string) *caddytest.Site {
	t.Helper()
	tablePath := testkit.WriteTable(t, []table.Entry{
		{ID: "ark:12345/sp1", Target: "/objects/x5wf6789.html", Meta: map[string]string{
			"who":  "Curie, Marie <0000-0002-1825-0097>; Doe, Jane",
			"what": "Données de test", "when": "2024", "type": "Dataset", "license": "CC-BY-4.0",
			"item": "https://repo.example.org/files/sp1.csv text/csv; https://repo.example.org/files/données-complètes-du-projet-de-recherche-sur-les-papillons-de-nuit.pdf application/pdf"}},
		{ID: "ark:12345/sp2", Target: "https://repo.example.org/sp2"},
		{ID: "ark:12345/sp3", Target: "https://repo.example.org/sp3", Status: 303},
		{ID: "ark:12345/sp4", Target: "https://repo.example.org/sp4", Status: 307},
		{ID: "ark:12345/gone", Status: 410, Meta: map[string]string{
			"what": "A withdrawn dataset", "reason": "Withdrawn at the depositor's request",
			"withdrawn": "2025-01-10", "successor": "ark:/12345/sp-1"}},
		{ID: "ark:12345/bare", Target: "/objects/x5wf6789.html"},
	})
	return caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		table `+tablePath+`
		metadata_defaults ark:12345 {
			publisher "Example Museum"
			license https://creativecommons.org/licenses/by/4.0/
		}
		`+extra+`
	}
	file_server`)
}

// parsedLinks parses the caddytest.Answer's Link headers with a strict RFC 8288
// parser, failing the test when they do not parse.
func parsedLinks(t *testing.T, got caddytest.Answer) []testkit.WebLink {
	t.Helper()
	l, err := testkit.ParseLinkHeader(got.Header.Values("Link"), false)
	if err != nil {
		t.Fatalf("Link %q: %v", got.Header.Values("Link"), err)
	}
	return l
}

// withRel returns the links of rel.
func withRel(links []testkit.WebLink, rel string) []testkit.WebLink {
	var out []testkit.WebLink
	for _, l := range links {
		if slices.Contains(l.Rels(), rel) {
			out = append(out, l)
		}
	}
	return out
}

// Level 1: every caddytest.Answer for a resolved ARK, and its HEAD, carries exactly
// one cite-as (its canonical URL), describedby links typed, the linkset
// in both media types, and what the record knows: its types, licence,
// authors with URIs, items; within 1 KiB.
func TestSignpostingOnEveryResolvedAnswer(t *testing.T) {
	s := signpostSite(t, "")
	for _, c := range []struct {
		path, key string
		status    int
	}{{"/ark:12345/sp1", "ark:12345/sp1", 200}, {"/ark:/12345/sp-2", "ark:12345/sp2", 302}, {"/ark:12345/sp3", "ark:12345/sp3", 303},
		{"/ark:12345/sp4", "ark:12345/sp4", 307}, {"/ark:12345/gone", "ark:12345/gone", 410}, {"/ark:12345/bare", "ark:12345/bare", 200}} {
		path, status, url := c.path, c.status, s.Base+"/"+c.key
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			got := s.Do(method, path, nil)
			if got.Status != status {
				t.Fatalf("%s %s: %d, want %d", method, path, got.Status, status)
			}
			links := parsedLinks(t, got)
			if c := withRel(links, "cite-as"); len(c) != 1 || c[0].Target != url {
				t.Errorf("%s %s: cite-as %v, want one to %s", method, path, c, url)
			}
			var types []string
			for _, l := range withRel(links, "linkset") {
				typ, _ := l.Param("type")
				types = append(types, typ)
			}
			slices.Sort(types)
			if !slices.Equal(types, []string{"application/linkset", "application/linkset+json"}) {
				t.Errorf("%s %s: linkset types %q", method, path, types)
			}
			d := withRel(links, "describedby")
			if len(d) == 0 || d[0].Target != url+"?info" {
				t.Errorf("%s %s: describedby %v", method, path, d)
			}
			for _, l := range d {
				if typ, ok := l.Param("type"); !ok || typ == "" {
					t.Errorf("%s %s: describedby <%s> without a type", method, path, l.Target)
				}
			}
			aboutPage := slices.ContainsFunc(withRel(links, "type"), func(l testkit.WebLink) bool { return l.Target == "https://schema.org/AboutPage" })
			if aboutPage != (status == 200) {
				t.Errorf("%s %s: typed AboutPage: %v", method, path, aboutPage)
			}
			if lic := withRel(links, "license"); status != 410 && (len(lic) != 1 || !strings.HasPrefix(lic[0].Target, "https://")) {
				t.Errorf("%s %s: license %v (every ARK under 12345 has the default one)", method, path, lic)
			}
			size := 0
			for _, v := range got.Header.Values("Link") {
				size += len("Link: \r\n") + len(v)
			}
			if n := len(got.Header.Values("Link")); n != 1 {
				t.Errorf("%s %s: %d Link field lines, want one", method, path, n)
			}
			if size > 1024 {
				t.Errorf("%s %s: %d bytes of Link headers", method, path, size)
			}
			if got.Header.Get("Vary") != "Accept" {
				t.Errorf("%s %s: Vary %q", method, path, got.Header.Values("Vary"))
			}
		}
	}
	sp1 := parsedLinks(t, s.Get("/ark:12345/sp1"))
	var rels []string
	for _, l := range sp1 {
		typ, _ := l.Param("type")
		rels = append(rels, l.Rels()[0]+" "+l.Target+" "+typ)
	}
	for _, want := range []string{
		"type https://schema.org/Dataset ",
		"license https://spdx.org/licenses/CC-BY-4.0 ", // the entry's own licence, not the default
		"author https://orcid.org/0000-0002-1825-0097 ",
		"item https://repo.example.org/files/sp1.csv text/csv",
	} {
		if !slices.Contains(rels, want) {
			t.Errorf("sp1 has no %q among\n%s", want, strings.Join(rels, "\n"))
		}
	}
	// The last item did not fit in 1 KiB: the linkset has it.
	if withRel(sp1, "item")[len(withRel(sp1, "item"))-1].Target == "https://repo.example.org/files/donn%C3%A9es-compl%C3%A8tes-du-projet-de-recherche-sur-les-papillons-de-nuit.pdf" {
		t.Error("the Link header holds every item: make the record larger to test the budget")
	}
	if ls := s.Get("/ark:12345/sp1?info=linkset-json"); !strings.Contains(ls.Body, `"https://repo.example.org/files/donn%C3%A9es-compl%C3%A8tes-du-projet-de-recherche-sur-les-papillons-de-nuit.pdf", "type": "application/pdf"`) {
		t.Errorf("the linkset has no last item:\n%s", ls.Body)
	}
	if a := withRel(sp1, "author"); len(a) != 1 {
		t.Errorf("authors %v: only creators with a URI are linked", a)
	}
	bare := parsedLinks(t, s.Get("/ark:12345/bare"))
	if n := len(withRel(bare, "author")) + len(withRel(bare, "item")) + len(withRel(bare, "type")); n != 1 {
		t.Errorf("an ARK without metadata has authors, items or types besides AboutPage: %v", bare)
	}
}

// Answers for anything but a resolved ARK carry no signposting.
func TestNoSignpostingWhereNothingResolved(t *testing.T) {
	s := signpostSite(t, "")
	for _, path := range []string{"/ark:12345/nothing", "/ark:99166/w66d60p2", "/ark:12345", "/objects/x5wf6789.html"} {
		if got := s.Get(path); len(got.Header.Values("Link")) != 0 {
			t.Errorf("%s (%d): Link %q", path, got.Status, got.Header.Values("Link"))
		}
	}
}

// Level 2: the linkset that rel="linkset" names, in both media types,
// holds the identifier's links under an absolute anchor, each metadata
// resource "describes" it and each item is in its "collection".
func TestLinksetLevel2(t *testing.T) {
	s := signpostSite(t, "")
	for _, path := range []string{"/ark:12345/sp1", "/ark:12345/sp2", "/ark:12345/gone"} {
		self := s.Base + path
		for _, l := range withRel(parsedLinks(t, s.Get(path)), "linkset") {
			typ, _ := l.Param("type")
			got := s.Get(strings.TrimPrefix(l.Target, s.Base))
			if got.Status != 200 || got.Header.Get("Content-Type") != typ {
				t.Fatalf("%s: %d %q: %s", l.Target, got.Status, got.Header.Get("Content-Type"), got.Body)
			}
			if got.Header.Get("Access-Control-Allow-Origin") != "*" || !slices.Contains(caddytest.Links(got)["describes"], self) {
				t.Errorf("%s: headers %v", l.Target, got.Header)
			}
			var anchors map[string][]string // anchor: its relations
			if typ == "application/linkset+json" {
				contexts, err := testkit.ParseLinksetJSON([]byte(got.Body))
				if err != nil {
					t.Fatalf("%s: %v\n%s", l.Target, err, got.Body)
				}
				anchors = map[string][]string{}
				for _, c := range contexts {
					for rel, targets := range c.Links {
						for _, target := range targets {
							anchors[c.Anchor] = append(anchors[c.Anchor], rel+" "+target["href"].(string))
						}
					}
				}
			} else {
				parsed, err := testkit.ParseLinkHeader([]string{got.Body}, true)
				if err != nil {
					t.Fatalf("%s: %v\n%s", l.Target, err, got.Body)
				}
				anchors = map[string][]string{}
				for _, p := range parsed {
					anchor, ok := p.Param("anchor")
					if u, err := url.Parse(anchor); !ok || err != nil || !u.IsAbs() {
						t.Errorf("%s: <%s> without an absolute anchor", l.Target, p.Target)
					}
					anchors[anchor] = append(anchors[anchor], p.Rels()[0]+" "+p.Target)
				}
			}
			if !slices.Contains(anchors[self], "cite-as "+self) {
				t.Errorf("%s: the identifier's context %q has no cite-as", l.Target, anchors[self])
			}
			for _, rel := range anchors[self] {
				if target, ok := strings.CutPrefix(rel, "describedby "); ok && !slices.Contains(anchors[target], "describes "+self) {
					t.Errorf("%s: %s does not describe %s: %q", l.Target, target, self, anchors[target])
				}
				if target, ok := strings.CutPrefix(rel, "item "); ok && !slices.Contains(anchors[target], "collection "+self) {
					t.Errorf("%s: item %s is not in the collection %s: %q", l.Target, target, self, anchors[target])
				}
			}
			if path == "/ark:12345/gone" && !slices.Contains(anchors[self], "successor-version "+s.Base+"/ark:12345/sp1") {
				t.Errorf("%s: the tombstone links no successor: %q", l.Target, anchors[self])
			}
		}
	}
}

// signposting off leaves the links of before: describedby to ?info, and
// cite-as when served in place.
func TestSignpostingOff(t *testing.T) {
	s := signpostSite(t, "signposting off")
	for path, want := range map[string][]string{
		"/ark:12345/sp1": {"describedby " + s.Base + "/ark:12345/sp1?info", "cite-as " + s.Base + "/ark:12345/sp1"},
		"/ark:12345/sp2": {"describedby " + s.Base + "/ark:12345/sp2?info"},
	} {
		var got []string
		for _, l := range parsedLinks(t, s.Get(path)) {
			got = append(got, l.Rels()[0]+" "+l.Target)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
}
