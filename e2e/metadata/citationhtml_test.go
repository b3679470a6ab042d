package metadata

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// The citation's own URL answers its HTML rendering to a client that
// prefers text/html (a browser following a link to it), the plain text to
// every other; the HTML says what the text says, runs nothing, and an
// ARK's own URL never negotiates it: a browser there gets the page.
func TestCitationInHTMLAtItsURL(t *testing.T) {
	s := signpostSite(t, "")
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	plain := s.Do(http.MethodGet, "/ark:12345/sp1?info=citation", http.Header{"Accept": {"text/x-bibliography"}})
	if plain.Status != 200 || plain.Header.Get("Content-Type") != "text/x-bibliography; charset=utf-8" || plain.Header.Get("Vary") != "Accept" {
		t.Fatalf("the text citation: %d %v", plain.Status, plain.Header)
	}
	if got := s.Get("/ark:12345/sp1?info=citation"); got.Body != plain.Body || got.Header.Get("Content-Type") != "text/x-bibliography; charset=utf-8" {
		t.Errorf("without Accept: %q %q, want the text", got.Header.Get("Content-Type"), got.Body)
	}
	page := s.Do(http.MethodGet, "/ark:12345/sp1?info=citation&style=apa", http.Header{"Accept": {browser}})
	if page.Status != 200 || page.Header.Get("Content-Type") != "text/html; charset=utf-8" || page.Header.Get("Vary") != "Accept" ||
		page.Header.Get("Content-Security-Policy") != "default-src 'none'" {
		t.Fatalf("the HTML citation: %d %v\n%s", page.Status, page.Header, page.Body)
	}
	doc, err := html.Parse(strings.NewReader(page.Body))
	if err != nil {
		t.Fatal(err)
	}
	var text, href strings.Builder
	var divs int
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			text.WriteString(n.Data)
		case n.Type == html.ElementNode && n.Data == "div":
			divs++
		case n.Type == html.ElementNode && n.Data == "a":
			for _, a := range n.Attr {
				if a.Key == "href" {
					href.WriteString(a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if strings.TrimSpace(text.String()) != strings.TrimSpace(plain.Body) || divs != 1 || href.String() != s.Base+"/ark:12345/sp1" {
		t.Errorf("the HTML citation says %q (%d divs, link %q), the text %q", text.String(), divs, href.String(), plain.Body)
	}
	if got := s.Do(http.MethodGet, "/ark:12345/sp1", http.Header{"Accept": {browser}}); got.Status != 200 || !strings.Contains(got.Body, "<h1>object x5wf6789</h1>") {
		t.Errorf("a browser at the ARK: %d %q", got.Status, got.Header.Get("Content-Type"))
	}
}
