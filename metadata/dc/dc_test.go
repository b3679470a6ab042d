package dc_test

import (
	"bytes"
	"encoding/xml"
	"path/filepath"
	"slices"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/metadata/dc"
	"github.com/caddy-ark/caddy-ark/metadata/internal/fixture"
)

// read is an oai_dc container as an XML decoder reads it back.
type read struct {
	Title      []string `xml:"http://purl.org/dc/elements/1.1/ title"`
	Creator    []string `xml:"http://purl.org/dc/elements/1.1/ creator"`
	Identifier []string `xml:"http://purl.org/dc/elements/1.1/ identifier"`
	Date       []string `xml:"http://purl.org/dc/elements/1.1/ date"`
	Subject    []string `xml:"http://purl.org/dc/elements/1.1/ subject"`
	Rights     []string `xml:"http://purl.org/dc/elements/1.1/ rights"`
}

// TestWriteValidatesAndReadsBack writes every fixture, validates it
// against the OAI's oai_dc.xsd (kept in oai/testdata/schemas) with
// xmllint, and reads it back with an XML decoder.
func TestWriteValidatesAndReadsBack(t *testing.T) {
	schema, _ := filepath.Abs("../../oai/testdata/schemas/oai_dc.xsd")
	for _, tc := range fixture.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := dc.Write(&buf, tc.Record); err != nil {
				t.Fatal(err)
			}
			if err := testkit.ValidateXML(t, schema, buf.Bytes()); err != nil {
				t.Fatalf("%v\n%s", err, buf.Bytes())
			}
			var got read
			if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			r := tc.Record
			if r.Title != "" && !slices.Equal(got.Title, []string{r.Title}) || r.Title == "" && got.Title != nil {
				t.Errorf("title %q, want %q", got.Title, r.Title)
			}
			if len(got.Creator) != len(r.Creators) {
				t.Errorf("creators %q, want %d", got.Creator, len(r.Creators))
			}
			if len(got.Identifier) == 0 || got.Identifier[0] != r.ID {
				t.Errorf("identifiers %q, want %s first", got.Identifier, r.ID)
			}
			if d := r.Date.ISO(); d != "" && !slices.Equal(got.Date, []string{d}) {
				t.Errorf("date %q, want %s", got.Date, d)
			}
			if !slices.Equal(got.Subject, r.Subjects) {
				t.Errorf("subjects %q, want %q", got.Subject, r.Subjects)
			}
		})
	}
}
