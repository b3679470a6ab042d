package csl_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/caddy-ark/caddy-ark/metadata/csl"
	"github.com/caddy-ark/caddy-ark/metadata/internal/fixture"
)

// TestWriteValidatesAgainstTheCSLSchema validates every fixture's item,
// as the one item of the schema's array, against the CSL data schema
// (citation-style-language/schema's csl-data.json) and reads it back.
func TestWriteValidatesAgainstTheCSLSchema(t *testing.T) {
	schema, err := jsonschema.NewCompiler().Compile("testdata/csl-data.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range fixture.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := csl.Write(&buf, tc.Record); err != nil {
				t.Fatal(err)
			}
			item, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate([]any{item}); err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			var got struct {
				ID     string `json:"id"`
				Type   string `json:"type"`
				Title  string `json:"title"`
				Author []struct {
					Family, Given, Literal string
				} `json:"author"`
				Issued struct {
					Parts [][]int `json:"date-parts"`
				} `json:"issued"`
				URL    string `json:"URL"`
				Status string `json:"status"`
				Note   string `json:"note"`
			}
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			r := tc.Record
			if got.ID != r.ID || got.Title != r.Title || got.URL != r.URL || got.Type != csl.Type(r.Type) {
				t.Errorf("read back %+v from %+v", got, r)
			}
			if len(got.Author) != len(r.Creators) {
				t.Fatalf("%d authors, want %d", len(got.Author), len(r.Creators))
			}
			for i, c := range r.Creators {
				a := got.Author[i]
				if c.Personal() && (a.Family != c.Family || a.Given != c.Given) || !c.Personal() && a.Literal != c.Name {
					t.Errorf("author %d: %+v, want %+v", i, a, c)
				}
			}
			if parts := r.Date.Parts(); parts != nil && (len(got.Issued.Parts) != 1 || !slices.Equal(got.Issued.Parts[0], parts)) {
				t.Errorf("issued %v, want %v", got.Issued.Parts, parts)
			}
			if wd := r.Withdrawal; wd != nil && (got.Status != "withdrawn" || got.Note != wd.Statement()) ||
				wd == nil && (got.Status != "" || got.Note != "") {
				t.Errorf("status %q, note %q for withdrawal %+v", got.Status, got.Note, wd)
			}
		})
	}
}
