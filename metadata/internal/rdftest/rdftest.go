// Package rdftest reads RDF for the format tests with real processors:
// JSON-LD through json-gold (github.com/piprate/json-gold) with the
// schema.org context served from a local copy, so that nothing goes to the
// network, and N-Triples through json-gold's N-Quads parser; both are then
// canonicalized with URDNA2015 so that two documents can be compared as
// graphs. Only tests import it.
package rdftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/piprate/json-gold/ld"

	"github.com/caddy-ark/caddy-ark/metadata/internal/fixture"
)

// schemaOrgContexts are the URLs under which documents refer to the
// schema.org context.
var schemaOrgContexts = map[string]bool{"https://schema.org": true, "https://schema.org/": true, "http://schema.org": true, "http://schema.org/": true}

// localLoader serves the schema.org context from a file and refuses any
// other URL.
type localLoader struct {
	context any
}

// LoadDocument implements ld.DocumentLoader.
func (l localLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	if !schemaOrgContexts[u] {
		return nil, fmt.Errorf("rdftest: no local copy of %s (the tests do not use the network)", u)
	}
	return &ld.RemoteDocument{DocumentURL: u, Document: l.context}, nil
}

// Triple is one statement, each term in N-Triples syntax: "<iri>",
// "_:b0", "\"text\"", "\"1903\"^^<http://schema.org/Date>".
type Triple struct {
	S, P, O string
}

// Graph is a canonicalized RDF graph.
type Graph struct {
	// NQuads is the canonical N-Quads form (URDNA2015), one statement a
	// line, sorted.
	NQuads string
	// Triples are its statements.
	Triples []Triple
}

// FromJSONLD reads a JSON-LD document to RDF, with the schema.org context
// read from contextFile.
func FromJSONLD(doc []byte, contextFile string) (*Graph, error) {
	ctxData, err := os.ReadFile(contextFile)
	if err != nil {
		return nil, err
	}
	context, err := ld.DocumentFromReader(bytes.NewReader(ctxData))
	if err != nil {
		return nil, err
	}
	var input any
	if err := json.Unmarshal(doc, &input); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	opts := ld.NewJsonLdOptions("")
	opts.DocumentLoader = localLoader{context: context}
	opts.Algorithm = ld.AlgorithmURDNA2015
	opts.Format = "application/n-quads"
	out, err := ld.NewJsonLdProcessor().Normalize(input, opts)
	if err != nil {
		return nil, err
	}
	return parse(out.(string))
}

// FromNTriples reads N-Triples (or N-Quads).
func FromNTriples(doc string) (*Graph, error) {
	opts := ld.NewJsonLdOptions("")
	opts.Algorithm = ld.AlgorithmURDNA2015
	opts.InputFormat = "application/n-quads"
	opts.Format = "application/n-quads"
	out, err := ld.NewJsonLdProcessor().Normalize(doc, opts)
	if err != nil {
		return nil, err
	}
	return parse(out.(string))
}

// parse reads canonical N-Quads into a Graph.
func parse(nquads string) (*Graph, error) {
	ds, err := ld.ParseNQuads(nquads)
	if err != nil {
		return nil, err
	}
	g := &Graph{NQuads: nquads}
	for _, q := range ds.GetQuads("@default") {
		g.Triples = append(g.Triples, Triple{S: term(q.Subject), P: term(q.Predicate), O: term(q.Object)})
	}
	sort.Slice(g.Triples, func(i, j int) bool {
		a, b := g.Triples[i], g.Triples[j]
		return a.S+a.P+a.O < b.S+b.P+b.O
	})
	return g, nil
}

// term is a node in N-Triples syntax.
func term(n ld.Node) string {
	switch n := n.(type) {
	case ld.IRI:
		return "<" + n.Value + ">"
	case ld.BlankNode:
		return n.Attribute
	case ld.Literal:
		s, _ := json.Marshal(n.Value)
		switch {
		case n.Language != "":
			return string(s) + "@" + n.Language
		case n.Datatype != "" && n.Datatype != ld.XSDString:
			return string(s) + "^^<" + n.Datatype + ">"
		}
		return string(s)
	}
	return fmt.Sprint(n)
}

// Objects are the objects of the statements with subject s and predicate
// p, in N-Triples syntax.
func (g *Graph) Objects(s, p string) []string {
	var out []string
	for _, t := range g.Triples {
		if t.S == s && t.P == p {
			out = append(out, t.O)
		}
	}
	return out
}

// Literal is s as an N-Triples literal term, as term writes it.
func Literal(s string) string {
	out, _ := json.Marshal(s)
	return string(out)
}

// IRI is s as an N-Triples IRI term.
func IRI(s string) string { return "<" + s + ">" }

// String is the graph's canonical N-Quads.
func (g *Graph) String() string { return strings.TrimSpace(g.NQuads) }

// CreatorIRIs returns the IRIs of the schema.org creators of s in g, in
// N-Triples syntax and sorted: the objects of schema:creator that are
// IRIs, not blank nodes.
func (g *Graph) CreatorIRIs(s string) []string {
	var out []string
	for _, o := range g.Objects(s, IRI("http://schema.org/creator")) {
		if strings.HasPrefix(o, "<") {
			out = append(out, o)
		}
	}
	sort.Strings(out)
	return out
}

// CheckCreatorIRIs checks that the graph identifies creators by absolute
// http(s) IRIs only, and CreatorURIsCase's creators by exactly the
// fixture's CreatorURIs: no other scheme, no relative reference.
func CheckCreatorIRIs(t *testing.T, g *Graph, tc fixture.Case) {
	t.Helper()
	got := g.CreatorIRIs(IRI(tc.Record.URL))
	for _, iri := range got {
		if !strings.HasPrefix(iri, "<https://") && !strings.HasPrefix(iri, "<http://") {
			t.Errorf("a creator is %s: not an absolute http(s) IRI", iri)
		}
	}
	if tc.Name != fixture.CreatorURIsCase {
		return
	}
	var want []string
	for _, u := range fixture.CreatorURIs {
		want = append(want, IRI(u))
	}
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("creators identified by %q, want %q", got, want)
	}
}
