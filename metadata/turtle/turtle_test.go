package turtle_test

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/metadata/internal/fixture"
	"github.com/caddy-ark/caddy-ark/metadata/internal/rdftest"
	"github.com/caddy-ark/caddy-ark/metadata/schemaorg"
	"github.com/caddy-ark/caddy-ark/metadata/turtle"
)

// TestWriteParsesToTheJSONLDGraph parses every fixture's Turtle with
// Raptor's rapper (Debian's raptor2-utils) and checks that it is the same
// graph as the schema.org JSON-LD of the record, read by a JSON-LD
// processor (json-gold); both graphs are canonicalized (URDNA2015) so that
// blank nodes compare.
func TestWriteParsesToTheJSONLDGraph(t *testing.T) {
	rapper := testkit.NeedTool(t, "rapper", "raptor2-utils")
	for _, tc := range fixture.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			var ttl, jsonld bytes.Buffer
			if err := turtle.Write(&ttl, tc.Record); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(rapper, "--quiet", "--input", "turtle", "--output", "ntriples", "-", "https://ark.example.org/")
			cmd.Stdin = bytes.NewReader(ttl.Bytes())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			nt, err := cmd.Output()
			if err != nil || stderr.Len() > 0 {
				t.Fatalf("rapper: %v\n%s\n%s", err, stderr.String(), ttl.String())
			}
			got, err := rdftest.FromNTriples(string(nt))
			if err != nil {
				t.Fatalf("N-Triples from rapper: %v\n%s", err, nt)
			}
			if err := schemaorg.Write(&jsonld, tc.Record); err != nil {
				t.Fatal(err)
			}
			want, err := rdftest.FromJSONLD(jsonld.Bytes(), "../schemaorg/testdata/schemaorgcontext.jsonld")
			if err != nil {
				t.Fatal(err)
			}
			rdftest.CheckCreatorIRIs(t, got, tc)
			if len(got.Triples) == 0 || got.String() != want.String() {
				t.Errorf("Turtle graph:\n%s\nJSON-LD graph:\n%s\nTurtle:\n%s", got, want, ttl.String())
			}
		})
	}
}
