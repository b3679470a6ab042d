// Package turtle writes a metadata.Record as RDF in Turtle, with the
// schema.org vocabulary: the same statements as the schema.org JSON-LD
// (metadata/schemaorg describes the record once for both), under
// http://schema.org/, the namespace the schema.org context maps its terms
// to, so that both formats give the same graph.
package turtle

import (
	"fmt"
	"io"
	"strings"

	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/metadata/schemaorg"
)

// MediaType is the media type of Turtle.
const MediaType = "text/turtle"

// prefixes are the namespaces the document declares, by prefix.
var prefixes = []struct{ prefix, iri string }{
	{"schema", "http://schema.org/"},
	{"dcterms", "http://purl.org/dc/terms/"},
}

// Write writes r as a Turtle document.
func Write(w io.Writer, r *metadata.Record) error {
	var b strings.Builder
	for _, p := range prefixes {
		fmt.Fprintf(&b, "@prefix %s: <%s> .\n", p.prefix, p.iri)
	}
	pending := []*schemaorg.Node{schemaorg.Describe(r)}
	for len(pending) > 0 {
		n := pending[0]
		pending = pending[1:]
		b.WriteString("\n" + iri(n.ID))
		pending = append(pending, writeBody(&b, n, "    ")...)
		b.WriteString(" .\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeBody writes the predicate-object list of n at indent; it returns
// the nested nodes that have IRIs of their own, for the caller to write
// as subjects.
func writeBody(b *strings.Builder, n *schemaorg.Node, indent string) []*schemaorg.Node {
	var named []*schemaorg.Node
	var parts []string
	first := indent // a blank node's first predicate starts its own line
	if indent == "    " {
		first = " " // the subject's follows it
	}
	if n.Type != "" {
		parts = append(parts, "a schema:"+n.Type)
	}
	for _, p := range n.Props {
		var objects []string
		for _, v := range p.Values {
			switch {
			case v.Node != nil && v.Node.ID != "":
				objects = append(objects, iri(v.Node.ID))
				named = append(named, v.Node)
			case v.Node != nil:
				var nested strings.Builder
				nested.WriteString("[\n")
				named = append(named, writeBody(&nested, v.Node, indent+"    ")...)
				nested.WriteString("\n" + indent + "]")
				objects = append(objects, nested.String())
			case v.IRI != "":
				objects = append(objects, iri(v.IRI))
			case v.Date:
				objects = append(objects, literal(v.Text)+"^^schema:Date")
			default:
				objects = append(objects, literal(v.Text))
			}
		}
		parts = append(parts, predicate(p.Name)+" "+strings.Join(objects, ", "))
	}
	for i, part := range parts {
		if i == 0 {
			b.WriteString(first)
		} else {
			b.WriteString(" ;\n" + indent)
		}
		b.WriteString(part)
	}
	return named
}

// predicate is a property's prefixed name: schema: unless it has a prefix
// of its own.
func predicate(name string) string {
	if strings.Contains(name, ":") {
		return name
	}
	return "schema:" + name
}

// iri is an IRI reference; characters IRIREF does not admit are
// %-encoded.
func iri(s string) string {
	var b strings.Builder
	b.WriteString("<")
	for _, c := range []byte(s) {
		if c <= ' ' || strings.IndexByte("<>\"{}|^`\\", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteString(">")
	return b.String()
}

// literal is a string literal, with quotes, backslashes, line breaks and
// other control characters escaped.
func literal(s string) string {
	var b strings.Builder
	b.WriteString(`"`)
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < ' ' || c == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, c)
				continue
			}
			b.WriteRune(c)
		}
	}
	b.WriteString(`"`)
	return b.String()
}
