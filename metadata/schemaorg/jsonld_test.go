package schemaorg_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/metadata/internal/fixture"
	"github.com/caddy-ark/caddy-ark/metadata/internal/rdftest"
	"github.com/caddy-ark/caddy-ark/metadata/schemaorg"
)

// contextFile is a copy of the schema.org context (release 30.0).
const contextFile = "testdata/schemaorgcontext.jsonld"

const (
	schema  = "http://schema.org/"
	rdfType = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
)

// TestWriteToTriples reads every fixture through a JSON-LD processor
// (json-gold, with the schema.org context from testdata) to RDF triples
// and checks the statements about the referent.
func TestWriteToTriples(t *testing.T) {
	for _, tc := range fixture.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := schemaorg.Write(&buf, tc.Record); err != nil {
				t.Fatal(err)
			}
			g, err := rdftest.FromJSONLD(buf.Bytes(), contextFile)
			if err != nil {
				t.Fatalf("JSON-LD processor: %v\n%s", err, buf.String())
			}
			CheckGraph(t, g, tc.Record)
			rdftest.CheckCreatorIRIs(t, g, tc)
			if t.Failed() {
				t.Logf("document:\n%s\ntriples:\n%s", buf.String(), g)
			}
		})
	}
}

// CheckGraph checks the statements a graph makes about the record's
// referent against the record.
func CheckGraph(t *testing.T, g *rdftest.Graph, r *metadata.Record) {
	t.Helper()
	s := rdftest.IRI(r.URL)
	expect := func(p string, want ...string) {
		t.Helper()
		got := g.Objects(s, rdftest.IRI(schemaOrDC(p)))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", p, got, want)
		}
	}
	expect("type", rdftest.IRI(schema+r.Type.SchemaOrg()))
	expect("identifier", rdftest.Literal(r.ID))
	expect("name", literals(r.Title)...)
	if d := r.Date.ISO(); d != "" {
		expect("datePublished", rdftest.Literal(d)+"^^<"+schema+"Date>")
	} else {
		expect("datePublished")
	}
	switch {
	case r.License.URI != "":
		expect("license", rdftest.IRI(r.License.URI))
	case r.License.Text != "":
		expect("license", rdftest.Literal(r.License.Text))
	default:
		expect("license")
	}
	expect("description", literals(r.Description)...)
	expect("inLanguage", literals(r.Language)...)
	expect("keywords", literals(r.Subjects...)...)
	creators := g.Objects(s, rdftest.IRI(schema+"creator"))
	if len(creators) != len(r.Creators) {
		t.Errorf("%d creators, want %d", len(creators), len(r.Creators))
	}
	for _, c := range r.Creators {
		node := ""
		for _, o := range creators {
			if slices.Contains(g.Objects(o, rdftest.IRI(schema+"name")), rdftest.Literal(c.Name)) {
				node = o
			}
		}
		if node == "" {
			t.Errorf("no creator named %q", c.Name)
			continue
		}
		if c.URI != "" && node != rdftest.IRI(c.URI) {
			t.Errorf("creator %q is %s, want %s", c.Name, node, c.URI)
		}
		if c.Personal() && !slices.Equal(g.Objects(node, rdftest.IRI(schema+"familyName")), []string{rdftest.Literal(c.Family)}) {
			t.Errorf("creator %q: familyName %q", c.Name, g.Objects(node, rdftest.IRI(schema+"familyName")))
		}
	}
	if publishers := g.Objects(s, rdftest.IRI(schema+"publisher")); r.Publisher == "" && len(publishers) > 0 ||
		r.Publisher != "" && (len(publishers) != 1 || !slices.Equal(g.Objects(publishers[0], rdftest.IRI(schema+"name")), []string{rdftest.Literal(r.Publisher)})) {
		t.Errorf("publisher: %q, want one named %q", publishers, r.Publisher)
	}
	if wd := r.Withdrawal; wd == nil {
		expect("creativeWorkStatus")
		expect("dcterms:isReplacedBy")
	} else {
		expect("creativeWorkStatus", rdftest.Literal("Withdrawn"))
		expect("conditionsOfAccess", rdftest.Literal(wd.Statement()))
		if d := wd.Date.ISO(); d != "" {
			expect("expires", rdftest.Literal(d)+"^^<"+schema+"Date>")
		}
		if wd.Successor != nil {
			expect("dcterms:isReplacedBy", rdftest.IRI(wd.Successor.URL))
		} else {
			expect("dcterms:isReplacedBy")
		}
	}
}

// schemaOrDC is the IRI of a property: a schema.org term, or a dcterms
// prefixed name, or rdf:type.
func schemaOrDC(p string) string {
	switch {
	case p == "type":
		return rdfType[1 : len(rdfType)-1]
	case len(p) > 8 && p[:8] == "dcterms:":
		return "http://purl.org/dc/terms/" + p[8:]
	}
	return schema + p
}

// literals are the non-empty values as literal terms.
func literals(values ...string) []string {
	var out []string
	for _, v := range values {
		if v != "" {
			out = append(out, rdftest.Literal(v))
		}
	}
	return out
}
