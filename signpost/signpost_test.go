package signpost

import (
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

var formats = []Format{{"datacite", "application/vnd.datacite.datacite+xml"}, {"jsonld", "application/ld+json"}, {"bibtex", "application/x-bibtex"}}

func sample() *Subject {
	return NewSubject("https://example.org/ark:12345/x5", true, formats,
		[]string{"https://schema.org/Dataset", "not a url"}, "https://spdx.org/licenses/CC-BY-4.0",
		[]string{"https://orcid.org/0000-0002-1825-0097", "Jane Doe"},
		[]Item{{Href: "https://example.org/files/x5.csv", Type: "text/csv"}, {Href: "https://example.org/données.pdf", Type: "not a type"}}, "")
}

// linksOf parses a Link header with a strict RFC 8288 parser and returns
// its links as "rel target type" strings.
func linksOf(t *testing.T, header []string) []string {
	t.Helper()
	links, err := testkit.ParseLinkHeader(header, false)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range links {
		typ, _ := l.Param("type")
		out = append(out, strings.TrimSpace(strings.Join(l.Rels(), " ")+" "+l.Target+" "+typ))
	}
	return out
}

func TestHeaderHasTheLevel1Links(t *testing.T) {
	got := linksOf(t, sample().Header([]string{"datacite", "bibtex"}, MaxHeaderBytes))
	want := []string{
		"cite-as https://example.org/ark:12345/x5",
		"linkset https://example.org/ark:12345/x5?info=linkset-json application/linkset+json",
		"linkset https://example.org/ark:12345/x5?info=linkset application/linkset",
		"type https://schema.org/AboutPage",
		"type https://schema.org/Dataset",
		"license https://spdx.org/licenses/CC-BY-4.0",
		"describedby https://example.org/ark:12345/x5?info text/plain",
		"describedby https://example.org/ark:12345/x5?info=datacite application/vnd.datacite.datacite+xml",
		"describedby https://example.org/ark:12345/x5?info=bibtex application/x-bibtex",
		"item https://example.org/files/x5.csv text/csv",
		"item https://example.org/donn%C3%A9es.pdf",
		"author https://orcid.org/0000-0002-1825-0097",
	}
	if !slices.Equal(got, want) {
		t.Errorf("links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestHeaderKeepsToItsBudget(t *testing.T) {
	var authors []string
	for range 30 {
		authors = append(authors, "https://orcid.org/0000-0002-1825-0097")
	}
	s := NewSubject("https://example.org/ark:12345/"+strings.Repeat("x", 200), false, formats, nil, "", authors, nil, "")
	if len(s.Authors) != MaxAuthors {
		t.Errorf("%d authors kept, want %d", len(s.Authors), MaxAuthors)
	}
	h := s.Header([]string{"datacite", "jsonld", "bibtex"}, MaxHeaderBytes)
	size := 0
	for _, v := range h {
		size += len("Link: \r\n") + len(v)
	}
	if size > MaxHeaderBytes {
		t.Errorf("header of %d bytes", size)
	}
	got := linksOf(t, h)
	if !strings.HasPrefix(got[0], "cite-as ") || !strings.HasPrefix(got[1], "linkset ") || !strings.HasPrefix(got[2], "linkset ") {
		t.Errorf("cite-as and the linksets are not first: %q", got)
	}
	// Even a budget too small for them keeps cite-as and the linksets.
	if got := linksOf(t, s.Header(nil, 10)); len(got) != 3 {
		t.Errorf("links under a tiny budget: %q", got)
	}
}

func TestTombstoneLinksItsSuccessor(t *testing.T) {
	s := NewSubject("https://example.org/ark:12345/old", false, formats, nil, "", nil, nil, "https://example.org/ark:12345/new")
	got := linksOf(t, s.Header(nil, MaxHeaderBytes))
	if !slices.Contains(got, "successor-version https://example.org/ark:12345/new") {
		t.Errorf("no successor-version: %q", got)
	}
	if slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, "type ") }) {
		t.Errorf("a tombstone typed as a landing page: %q", got)
	}
}

func TestLinksetJSON(t *testing.T) {
	s := sample()
	contexts, err := testkit.ParseLinksetJSON(s.LinksetJSONBody())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.LinksetJSONBody())
	}
	self := contexts[0]
	if self.Anchor != s.URL {
		t.Errorf("first anchor %q", self.Anchor)
	}
	if len(self.Links["cite-as"]) != 1 || self.Links["cite-as"][0]["href"] != s.URL {
		t.Errorf("cite-as: %v", self.Links["cite-as"])
	}
	if _, ok := self.Links["linkset"]; ok {
		t.Error("the linkset links to itself")
	}
	if n := len(self.Links["describedby"]); n != 1+len(formats) {
		t.Errorf("%d describedby, want every format and ?info", n)
	}
	describes, collection := 0, 0
	for _, c := range contexts[1:] {
		if d := c.Links["describes"]; len(d) == 1 && d[0]["href"] == s.URL {
			describes++
		}
		if d := c.Links["collection"]; len(d) == 1 && d[0]["href"] == s.URL {
			collection++
		}
	}
	if describes != 1+len(formats) || collection != 2 {
		t.Errorf("%d describes, %d collection", describes, collection)
	}
}

func TestLinksetText(t *testing.T) {
	s := sample()
	links, err := testkit.ParseLinkHeader([]string{string(s.LinksetTextBody())}, true)
	if err != nil {
		t.Fatal(err)
	}
	json, _ := testkit.ParseLinksetJSON(s.LinksetJSONBody())
	n := 0
	for _, c := range json {
		for _, targets := range c.Links {
			n += len(targets)
		}
	}
	if len(links) != n {
		t.Errorf("%d links in the text linkset, %d in the JSON one", len(links), n)
	}
	for _, l := range links {
		if a, ok := l.Param("anchor"); !ok || !strings.HasPrefix(a, "https://") {
			t.Errorf("<%s> without an absolute anchor", l.Target)
		}
	}
}

func BenchmarkHeader(b *testing.B) {
	s := sample()
	b.ReportAllocs()
	for b.Loop() {
		s.Header([]string{"datacite", "bibtex"}, MaxHeaderBytes)
	}
}
