package ris_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/metadata/internal/bibread"
	"github.com/caddy-ark/caddy-ark/metadata/internal/fixture"
	"github.com/caddy-ark/caddy-ark/metadata/ris"
)

// TestWriteReadsBack reads every fixture's reference with bibutils' RIS
// reader (ris2xml) and compares what it read with the record.
func TestWriteReadsBack(t *testing.T) {
	for _, tc := range fixture.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := ris.Write(&buf, tc.Record); err != nil {
				t.Fatal(err)
			}
			got := bibread.Must(t, bibread.Read(t, "ris2xml", buf.Bytes()))
			r := tc.Record
			if got.Key != r.ID {
				t.Errorf("ID %q, want %q", got.Key, r.ID)
			}
			// A value is one line: its line breaks, of any kind, are
			// spaces, so that none starts a tag of its own.
			line := fixture.OneLine
			if got.Title != line(r.Title) || got.Publisher != line(r.Publisher) {
				t.Errorf("title %q, publisher %q; want %q, %q", got.Title, got.Publisher, line(r.Title), line(r.Publisher))
			}
			if want := line(r.Description); got.Abstract != want {
				t.Errorf("abstract %q, want %q", got.Abstract, want)
			}
			if len(got.Names) != len(r.Creators) {
				t.Fatalf("%d names, want %d", len(got.Names), len(r.Creators))
			}
			// RIS marks no name as an organization's, so bibutils reads
			// "Example Museum" as given "Example", family "Museum"; such a
			// name reads back whole from its parts in order (a name without a space
			// is one part with no type).
			for i, c := range r.Creators {
				n := got.Names[i]
				whole := strings.TrimSpace(n.Part("given") + " " + n.Part("family") + " " + n.Part(""))
				if c.Personal() && (n.Part("family") != line(c.Family) || n.Part("given") != line(c.Given)) || !c.Personal() && whole != line(c.Name) {
					t.Errorf("name %d: %+v, want %+v", i, n, c)
				}
			}
			if got.Issued != r.Date.ISO() {
				t.Errorf("issued %q, want %q", got.Issued, r.Date.ISO())
			}
			var subjects []string
			for _, s := range r.Subjects {
				subjects = append(subjects, line(s))
			}
			if !slices.Equal(got.Topics, subjects) {
				t.Errorf("keywords %q, want %q", got.Topics, r.Subjects)
			}
			if !slices.Equal(got.URLs, []string{r.URL}) {
				t.Errorf("urls %q, want %q", got.URLs, r.URL)
			}
			var notes []string // bibutils reads M3, the type of work, as a note
			if r.Type.Specific != "" {
				notes = append(notes, line(r.Type.Specific))
			}
			if r.Withdrawal != nil {
				notes = append(notes, line(r.Withdrawal.Statement()))
			}
			if !slices.Equal(got.Notes, notes) {
				t.Errorf("notes %q, want %q", got.Notes, notes)
			}
			// Every line of the reference is a tag's: CR LF ends the
			// lines, and no other line break is left in a value.
			for i, l := range strings.Split(strings.TrimSuffix(buf.String(), "\r\n"), "\r\n") {
				if len(l) < 6 || l[2:6] != "  - " || strings.ContainsAny(l, "\r\n\v\f\u0085\u2028\u2029") {
					t.Errorf("line %d %q is not one tag's", i+1, l)
				}
			}
			if t.Failed() {
				t.Logf("reference:\n%s", buf.String())
			}
		})
	}
}
