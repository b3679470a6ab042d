// Package schemaorg writes a metadata.Record as schema.org JSON-LD, the
// description search engines and FAIR assessment tools read, with the
// schema.org context by reference ("@context": "https://schema.org").
//
// The referent is the node named by the identifier's canonical URL; its
// type is that of the record's DataCite resourceTypeGeneral (see
// metadata.ResourceType.SchemaOrg). A withdrawn record has
// creativeWorkStatus "Withdrawn", its withdrawal date as expires, the
// withdrawal statement as conditionsOfAccess and its successor as
// dcterms:isReplacedBy (the schema.org context defines the dcterms
// prefix).
package schemaorg

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/caddy-ark/caddy-ark/metadata"
)

// MediaType is the media type of JSON-LD; VendorMediaType names schema.org
// JSON-LD in particular, as DOI content negotiation does.
const (
	MediaType       = "application/ld+json"
	VendorMediaType = "application/vnd.schemaorg.ld+json"
)

// Context is the schema.org context the documents refer to.
const Context = "https://schema.org"

// iriTerms are the terms the schema.org context types as IRIs ("@type":
// "@id"), whose IRI values are written as plain strings and text values
// as {"@value": …}; any other IRI is written {"@id": …}.
var iriTerms = map[string]bool{"url": true, "license": true, "contentUrl": true, "sameAs": true}

// Write writes r as a schema.org JSON-LD document.
func Write(w io.Writer, r *metadata.Record) error {
	var buf bytes.Buffer
	buf.WriteString("{\n  \"@context\": \"" + Context + "\",\n")
	writeNode(&buf, Describe(r), "  ")
	buf.WriteString("\n}\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// writeNode writes the members of n (without braces) at indent.
func writeNode(b *bytes.Buffer, n *Node, indent string) {
	var members []string
	if n.ID != "" {
		members = append(members, `"@id": `+quote(n.ID))
	}
	if n.Type != "" {
		members = append(members, `"@type": `+quote(n.Type))
	}
	for _, p := range n.Props {
		var m bytes.Buffer
		m.WriteString(quote(p.Name) + ": ")
		switch {
		case len(p.Values) == 1:
			writeValue(&m, p.Name, p.Values[0], indent)
		case p.Values[0].Node != nil:
			// An array of nodes: one a line, indented.
			m.WriteString("[\n")
			for i, v := range p.Values {
				if i > 0 {
					m.WriteString(",\n")
				}
				m.WriteString(indent + "  ")
				writeValue(&m, p.Name, v, indent+"  ")
			}
			m.WriteString("\n" + indent + "]")
		default:
			m.WriteString("[")
			for i, v := range p.Values {
				if i > 0 {
					m.WriteString(", ")
				}
				writeValue(&m, p.Name, v, indent)
			}
			m.WriteString("]")
		}
		members = append(members, m.String())
	}
	for i, m := range members {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(indent + m)
	}
}

// writeValue writes one value of property name.
func writeValue(b *bytes.Buffer, name string, v Value, indent string) {
	switch {
	case v.Node != nil:
		b.WriteString("{\n")
		writeNode(b, v.Node, indent+"  ")
		b.WriteString("\n" + indent + "}")
	case v.IRI != "" && iriTerms[name]:
		b.WriteString(quote(v.IRI))
	case v.IRI != "":
		b.WriteString(`{"@id": ` + quote(v.IRI) + `}`)
	case iriTerms[name]:
		// Text where the context expects an IRI (a licence given as text):
		// a value object keeps it a literal.
		b.WriteString(`{"@value": ` + quote(v.Text) + `}`)
	default:
		b.WriteString(quote(v.Text))
	}
}

// quote is s as a JSON string.
func quote(s string) string {
	out, _ := json.Marshal(s)
	return string(out)
}
