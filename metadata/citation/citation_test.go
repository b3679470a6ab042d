package citation_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/metadata/citation"
	"github.com/caddy-ark/caddy-ark/metadata/csl"
	"github.com/caddy-ark/caddy-ark/metadata/internal/fixture"
)

// apaStyle is the CSL project's APA style, from Debian's
// citation-style-language-styles.
const apaStyle = "/usr/share/citation-style-language/styles/apa.csl"

// citeproc renders the CSL-JSON items of stdin with citeproc-py and a CSL
// style, and writes each item's bibliography entry by id, as JSON.
const citeproc = `import json, sys
from citeproc import CitationStylesStyle, CitationStylesBibliography, formatter, Citation, CitationItem
from citeproc.source.json import CiteProcJSON
items = json.load(sys.stdin)
bib = CitationStylesBibliography(CitationStylesStyle(sys.argv[1], validate=False), CiteProcJSON(items), formatter.plain)
for it in items:
    bib.register(Citation([CitationItem(it["id"])]))
json.dump({item.key: str(text) for item, text in zip(bib.items, bib.bibliography())}, sys.stdout)`

// cases are the fixtures and records that exercise APA's author rules.
func cases() []fixture.Case {
	out := fixture.Cases()
	many := make([]string, 22)
	for i := range many {
		many[i] = fmt.Sprintf("Author%d, Given", i)
	}
	for _, c := range []struct{ name, who string }{
		{"22 authors", strings.Join(many, "; ")},
		{"two authors, hyphenated given names", "Dupont, Jean-Paul; Li, Xiao Ming"},
		{"one corporate author", "Example Museum"},
	} {
		r := metadata.New(metadata.Identifier{ID: "ark:12345/x5" + fmt.Sprint(len(out)), URL: "https://ark.example.org/ark:12345/x5" + fmt.Sprint(len(out)), Status: 302},
			map[string]string{"who": c.who, "what": "A title", "when": "2020"}, nil, "")
		out = append(out, fixture.Case{Name: c.name, Record: r})
	}
	return out
}

// TestAPAAsCiteproc renders every case with citeproc-py and the CSL
// project's apa.csl (Debian's python3-citeproc and
// citation-style-language-styles) from the record's CSL-JSON, and checks
// that the citation says the same.
func TestAPAAsCiteproc(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import citeproc").Run(); err != nil {
		testkit.Missing(t, "citeproc-py", "python3-citeproc")
	}
	if _, err := os.Stat(apaStyle); err != nil {
		testkit.Missing(t, "apa.csl", "citation-style-language-styles")
	}
	var items []*csl.Item
	for _, tc := range cases() {
		items = append(items, csl.NewItem(tc.Record))
	}
	in, _ := json.Marshal(items)
	cmd := exec.Command("/usr/bin/python3", "-c", citeproc, apaStyle)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("citeproc-py: %v", err)
	}
	var want map[string]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("citeproc-py: %v\n%s", err, out)
	}
	for _, tc := range cases() {
		t.Run(tc.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := citation.Write(&buf, tc.Record, "apa"); err != nil {
				t.Fatal(err)
			}
			got, ok := strings.CutSuffix(buf.String(), "\n")
			if !ok || strings.ContainsAny(got, "\r\n\v\f\u0085\u2028\u2029") {
				t.Errorf("citation %q: not one line and a newline", buf.String())
			}
			if wd := tc.Record.Withdrawal; wd != nil {
				if got, ok = strings.CutSuffix(got, " "+fixture.OneLine(wd.Statement())); !ok {
					t.Errorf("%q does not end with the withdrawal statement %q", got, wd.Statement())
				}
			}
			// citeproc-py keeps a value's line breaks; the plain-text
			// citation is one line, each of them a space.
			if w := fixture.OneLine(citeprocFixed(want[tc.Record.ID], tc.Record)); got != w {
				t.Errorf("citation\n%q\nciteproc-py with apa.csl\n%q", got, w)
			}
		})
	}
}

// citeprocFixed undoes two bugs of citeproc-py (0.6): it doubles the
// period after a name that ends in one ("Curie, M.."; "von .."), and when
// a title stands in for missing authors it prints the title again.
func citeprocFixed(s string, r *metadata.Record) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, " ..", "."), "..", ".")
	if len(r.Creators) == 0 && r.Title != "" {
		if head, tail, ok := strings.Cut(s, "). "); ok {
			s = head + "). " + strings.TrimPrefix(tail, r.Title+". ")
		}
	}
	return s
}

// TestHTMLSaysTheSame parses each case's HTML citation and checks that its
// text is the plain citation, its <i> the title and its <a> the URL.
func TestHTMLSaysTheSame(t *testing.T) {
	for _, tc := range cases() {
		t.Run(tc.Name, func(t *testing.T) {
			var plain, fragment bytes.Buffer
			if err := citation.Write(&plain, tc.Record, ""); err != nil {
				t.Fatal(err)
			}
			if err := citation.WriteHTML(&fragment, tc.Record, "apa"); err != nil {
				t.Fatal(err)
			}
			doc, err := html.Parse(&fragment)
			if err != nil {
				t.Fatal(err)
			}
			var text, italic, href strings.Builder
			var walk func(n *html.Node, inItalic bool)
			walk = func(n *html.Node, inItalic bool) {
				switch {
				case n.Type == html.TextNode:
					text.WriteString(n.Data)
					if inItalic {
						italic.WriteString(n.Data)
					}
				case n.Type == html.ElementNode && n.Data == "i":
					inItalic = true
				case n.Type == html.ElementNode && n.Data == "a":
					for _, a := range n.Attr {
						if a.Key == "href" {
							href.WriteString(a.Val)
						}
					}
				}
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c, inItalic)
				}
			}
			walk(doc, false)
			r := tc.Record
			if got := strings.TrimSpace(text.String()); got != strings.TrimSpace(plain.String()) {
				t.Errorf("HTML text %q, plain %q", got, plain.String())
			}
			if italic.String() != fixture.OneLine(r.Title) || href.String() != r.URL {
				t.Errorf("italic %q, href %q; want %q, %q", italic.String(), href.String(), fixture.OneLine(r.Title), r.URL)
			}
		})
	}
}

func TestUnknownStyle(t *testing.T) {
	if err := citation.Write(&bytes.Buffer{}, fixture.Cases()[0].Record, "chicago"); err != citation.ErrUnknownStyle {
		t.Errorf("got %v, want ErrUnknownStyle", err)
	}
}
