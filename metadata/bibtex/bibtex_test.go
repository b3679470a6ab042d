package bibtex_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/metadata/bibtex"
	"github.com/caddy-ark/caddy-ark/metadata/internal/bibread"
	"github.com/caddy-ark/caddy-ark/metadata/internal/fixture"
)

// TestWriteReadsBack reads every fixture's entry back with BibTeX readers
// and compares what they read with the record: TeX specials, non-ASCII
// text, names, dates and tombstones.
func TestWriteReadsBack(t *testing.T) {
	readBack(t, fixture.Cases())
}

// TestSpecialsInEveryField puts each TeX special, alone and together, in
// the creators, title, publisher and abstract. A backslash before another
// special is left out of the names: bibutils decodes names twice, so it
// reads the correct "$\backslash$\&" as "&" there (but as "\&" in the
// title).
func TestSpecialsInEveryField(t *testing.T) {
	var cases []fixture.Case
	for i, special := range []string{"&", "%", "$", "#", "_", "{", "}", "~", "^", `\`, "{}", "}{", `\&`, `%&$#_{}~^\`, "é東"} {
		v := "a" + special + "b"
		meta := map[string]string{"what": v, "publisher": v, "description": v}
		if !strings.Contains(special, `\&`) {
			meta["who"] = "F" + v + ", G" + v + "; Org " + v
		}
		key := "ark:12345/x5" + string(rune('a'+i))
		r := metadata.New(metadata.Identifier{ID: key, URL: "https://ark.example.org/" + key, Status: 302}, meta, nil, "")
		cases = append(cases, fixture.Case{Name: special, Record: r})
	}
	readBack(t, cases)
}

// readBack writes the cases' entries into one document, reads it with
// bibutils' BibTeX reader (bib2xml, which decodes TeX), with btparse
// (BibTeX's parser library) and, for btparse's raw fields, with a LaTeX
// reader, and checks each entry against its record.
func readBack(t *testing.T, cases []fixture.Case) {
	var doc bytes.Buffer
	for _, tc := range cases {
		if err := bibtex.Write(&doc, tc.Record); err != nil {
			t.Fatal(err)
		}
	}
	decoded := bibread.Read(t, "bib2xml", doc.Bytes())
	entries := bibread.Parse(t, doc.Bytes())
	if len(decoded) != len(cases) || len(entries) != len(cases) {
		t.Fatalf("bib2xml read %d entries, btparse %d, of %d:\n%s", len(decoded), len(entries), len(cases), doc.String())
	}
	var raw []string
	for _, e := range entries {
		raw = append(raw, latexFields(e)...)
	}
	text := bibread.LaTeXToText(t, raw)
	for i, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			check(t, tc.Record, decoded[i])
			checkLaTeX(t, tc.Record, entries[i], text[i*len(latexNames):(i+1)*len(latexNames)])
			if t.Failed() {
				var entry bytes.Buffer
				_ = bibtex.Write(&entry, tc.Record)
				t.Logf("entry:\n%s", entry.String())
			}
		})
	}
}

// check compares what bib2xml read with the record written.
func check(t *testing.T, r *metadata.Record, got bibread.Record) {
	t.Helper()
	text := bibread.TeXTypography
	line := oneLine
	if got.Key != bibtex.Key(r.ID) {
		t.Errorf("key %q, want %q", got.Key, bibtex.Key(r.ID))
	}
	if text(got.Title) != line(r.Title) {
		t.Errorf("title %q, want %q", got.Title, line(r.Title))
	}
	if text(got.Publisher) != line(r.Publisher) {
		t.Errorf("publisher %q, want %q", got.Publisher, line(r.Publisher))
	}
	if want := line(r.Description); text(got.Abstract) != want {
		t.Errorf("abstract %q, want %q", got.Abstract, want)
	}
	if len(got.Names) != len(r.Creators) {
		t.Fatalf("%d names, want %d", len(got.Names), len(r.Creators))
	}
	// In names, bibutils reads a "~" (\textasciitilde{} decoded) as
	// BibTeX's tie, a space.
	tie := strings.NewReplacer("~", " ").Replace
	for i, c := range r.Creators {
		n := got.Names[i]
		if c.Personal() && (n.Type != "personal" || text(n.Part("family")) != tie(line(c.Family)) || text(n.Part("given")) != tie(line(c.Given))) ||
			!c.Personal() && (n.Type == "personal" || text(n.Part("")) != tie(line(c.Name))) {
			t.Errorf("name %d: %+v, want %+v", i, n, c)
		}
	}
	want := r.Date.YearString()
	if r.Date.Month != 0 {
		want = r.Date.ISO()[:7]
	}
	if got.Issued != want {
		t.Errorf("issued %q, want %q", got.Issued, want)
	}
	if !slices.Equal(got.URLs, []string{r.URL}) {
		t.Errorf("urls %q, want %q", got.URLs, r.URL)
	}
	var notes []string
	if r.Withdrawal != nil {
		notes = []string{line(r.Withdrawal.Statement())}
	}
	for i := range got.Notes {
		got.Notes[i] = text(got.Notes[i])
	}
	if !slices.Equal(got.Notes, notes) {
		t.Errorf("notes %q, want %q", got.Notes, notes)
	}
}

// latexNames are the fields read as LaTeX text.
var latexNames = []string{"title", "publisher", "abstract", "note"}

// latexFields are an entry's raw latexNames fields.
func latexFields(e bibread.Entry) []string {
	out := make([]string, len(latexNames))
	for i, name := range latexNames {
		out[i] = e.Fields[name]
	}
	return out
}

// checkLaTeX compares an entry as btparse parsed it, its raw fields read
// as LaTeX text, with the record: a special that LaTeX would take as
// markup ("%" a comment, "&" an alignment tab, "$" math) reads back
// otherwise than written.
func checkLaTeX(t *testing.T, r *metadata.Record, e bibread.Entry, text []string) {
	t.Helper()
	if e.Key != bibtex.Key(r.ID) || e.Type != bibtex.EntryType(r.Type) {
		t.Errorf("btparse read @%s{%s, want @%s{%s", e.Type, e.Key, bibtex.EntryType(r.Type), bibtex.Key(r.ID))
	}
	want := []string{oneLine(r.Title), oneLine(r.Publisher), oneLine(r.Description), ""}
	if r.Withdrawal != nil {
		want[3] = oneLine(r.Withdrawal.Statement())
	}
	raw := latexFields(e)
	for i := range text {
		if got := bibread.TeXTypography(text[i]); got != want[i] {
			t.Errorf("%s: LaTeX reads %q as %q, want %q", latexNames[i], raw[i], got, want[i])
		}
	}
}

// oneLine is v as a BibTeX reader gives a field back: its line breaks, of
// any kind, spaces, and runs of spaces one (BibTeX's whitespace).
func oneLine(v string) string {
	return strings.Join(strings.FieldsFunc(fixture.OneLine(v), func(c rune) bool { return c == ' ' }), " ")
}
