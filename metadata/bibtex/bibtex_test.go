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

// TestWriteReadsBack reads every fixture's entry with bibutils' BibTeX
// reader (bib2xml), which decodes TeX, and compares what it read with the
// record: TeX specials, non-ASCII text, names, dates and tombstones.
func TestWriteReadsBack(t *testing.T) {
	for _, tc := range fixture.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := bibtex.Write(&buf, tc.Record); err != nil {
				t.Fatal(err)
			}
			got := bibread.Must(t, bibread.Read(t, "bib2xml", buf.Bytes()))
			check(t, tc.Record, got)
			checkLaTeX(t, tc.Record, buf.Bytes())
			if t.Failed() {
				t.Logf("entry:\n%s", buf.String())
			}
		})
	}
}

// TestSpecialsInEveryField puts each TeX special, alone and together, in
// the creators, title, publisher and abstract. A backslash before another
// special is left out of the names: bibutils decodes names twice, so it
// reads the correct "$\backslash$\&" as "&" there (but as "\&" in the
// title).
func TestSpecialsInEveryField(t *testing.T) {
	for _, special := range []string{"&", "%", "$", "#", "_", "{", "}", "~", "^", `\`, "{}", "}{", `\&`, `%&$#_{}~^\`, "é東"} {
		t.Run(special, func(t *testing.T) {
			v := "a" + special + "b"
			meta := map[string]string{"what": v, "publisher": v, "description": v}
			if !strings.Contains(special, `\&`) {
				meta["who"] = "F" + v + ", G" + v + "; Org " + v
			}
			r := metadata.New(metadata.Identifier{ID: "ark:12345/x5", URL: "https://ark.example.org/ark:12345/x5", Status: 302}, meta, nil, "")
			var buf bytes.Buffer
			if err := bibtex.Write(&buf, r); err != nil {
				t.Fatal(err)
			}
			got := bibread.Must(t, bibread.Read(t, "bib2xml", buf.Bytes()))
			check(t, r, got)
			checkLaTeX(t, r, buf.Bytes())
			if t.Failed() {
				t.Logf("entry:\n%s", buf.String())
			}
		})
	}
}

// check compares a record read back with the record written.
func check(t *testing.T, r *metadata.Record, got bibread.Record) {
	t.Helper()
	text := bibread.TeXTypography
	if got.Key != bibtex.Key(r.ID) {
		t.Errorf("key %q, want %q", got.Key, bibtex.Key(r.ID))
	}
	if text(got.Title) != r.Title {
		t.Errorf("title %q, want %q", got.Title, r.Title)
	}
	if text(got.Publisher) != r.Publisher {
		t.Errorf("publisher %q, want %q", got.Publisher, r.Publisher)
	}
	if want := strings.ReplaceAll(r.Description, "\n", " "); text(got.Abstract) != want {
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
		if c.Personal() && (n.Type != "personal" || text(n.Part("family")) != tie(c.Family) || text(n.Part("given")) != tie(c.Given)) ||
			!c.Personal() && (n.Type == "personal" || text(n.Part("")) != tie(c.Name)) {
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
		notes = []string{r.Withdrawal.Statement()}
	}
	for i := range got.Notes {
		got.Notes[i] = text(got.Notes[i])
	}
	if !slices.Equal(got.Notes, notes) {
		t.Errorf("notes %q, want %q", got.Notes, notes)
	}
}

// checkLaTeX parses the entry with btparse, BibTeX's parser library, and
// reads its raw fields with a LaTeX reader: a special that LaTeX would take
// as markup ("%" a comment, "&" an alignment tab, "$" math) reads back
// otherwise than written.
func checkLaTeX(t *testing.T, r *metadata.Record, doc []byte) {
	t.Helper()
	entries := bibread.Parse(t, doc)
	if len(entries) != 1 {
		t.Fatalf("btparse read %d entries, want 1", len(entries))
	}
	e := entries[0]
	if e.Key != bibtex.Key(r.ID) || e.Type != bibtex.EntryType(r.Type) {
		t.Errorf("btparse read @%s{%s, want @%s{%s", e.Type, e.Key, bibtex.EntryType(r.Type), bibtex.Key(r.ID))
	}
	names := []string{"title", "publisher", "abstract"}
	want := []string{r.Title, r.Publisher, strings.ReplaceAll(r.Description, "\n", " ")}
	if r.Withdrawal != nil {
		names, want = append(names, "note"), append(want, r.Withdrawal.Statement())
	}
	var raw []string
	for _, name := range names {
		raw = append(raw, e.Fields[name])
	}
	got := bibread.LaTeXToText(t, raw)
	for i := range got {
		if got[i] = bibread.TeXTypography(got[i]); got[i] != want[i] {
			t.Errorf("%s: LaTeX reads %q as %q, want %q", names[i], raw[i], got[i], want[i])
		}
	}
}
