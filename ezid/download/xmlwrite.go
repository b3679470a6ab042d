package download

import (
	"bufio"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strings"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

// xmlWriter writes EZID's XML format: a <records> document, a <record
// identifier="…"> a record (one a line), an <element name="…"> an
// element. The whole-record documents of the elements datacite and
// crossref are embedded as XML, without their XML declaration, as EZID
// embeds them; one that is not well-formed XML is written as text.
type xmlWriter struct {
	w *bufio.Writer
}

func newXMLWriter(w io.Writer) (*xmlWriter, error) {
	xw := &xmlWriter{w: bufio.NewWriter(w)}
	_, err := xw.w.WriteString(xml.Header + "<records>\n")
	return xw, err
}

func (xw *xmlWriter) Write(r *anvl.Record) error {
	xw.w.WriteString(`<record identifier="`)
	xmlEscape(xw.w, r.ID)
	xw.w.WriteString(`">`)
	for _, e := range r.Elements {
		xw.w.WriteString(`<element name="`)
		xmlEscape(xw.w, e.Name)
		xw.w.WriteString(`">`)
		if doc, ok := embeddable(e); ok {
			xw.w.WriteString(doc)
		} else {
			xmlEscape(xw.w, e.Value)
		}
		xw.w.WriteString("</element>")
	}
	_, err := xw.w.WriteString("</record>\n")
	return err
}

func (xw *xmlWriter) Close() error {
	xw.w.WriteString("</records>\n")
	return xw.w.Flush()
}

// xmlEscape writes s as XML character data or an attribute value. A
// character that XML 1.0 cannot hold is written as U+FFFD.
func xmlEscape(w *bufio.Writer, s string) {
	xml.EscapeText(w, []byte(s))
}

// embeddedElements are the elements whose value is a whole XML document,
// which the XML format embeds as XML.
var embeddedElements = map[string]bool{"datacite": true, "crossref": true}

// xmlDeclaration is an XML declaration at the start of a document, with
// the white space after it, as EZID removes it before embedding.
var xmlDeclaration = regexp.MustCompile(`^<\?xml\s+version\s*=\s*(?:'[-\w.:]+'|"[-\w.:]+")` +
	`(?:\s+encoding\s*=\s*(?:'[a-zA-Z][-\w.]*'|"[a-zA-Z][-\w.]*"))?` +
	`(?:\s+standalone\s*=\s*(?:'(?:yes|no)'|"(?:yes|no)"))?\s*\?>\s*`)

// embeddable returns the document that e holds without its XML
// declaration, when e is datacite or crossref and holds one well-formed
// XML element.
func embeddable(e anvl.Element) (string, bool) {
	if !embeddedElements[e.Name] {
		return "", false
	}
	doc := strings.TrimSpace(xmlDeclaration.ReplaceAllString(strings.TrimSpace(e.Value), ""))
	if !strings.HasPrefix(doc, "<") || !wellFormed(doc) {
		return "", false
	}
	return doc, true
}

// wellFormed reports whether doc is one well-formed XML element, with
// nothing but comments and white space around it.
func wellFormed(doc string) bool {
	d := xml.NewDecoder(strings.NewReader(doc))
	depth, roots := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return depth == 0 && roots == 1
		}
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(strings.TrimSpace(string(t))) > 0 {
				return false
			}
		case xml.ProcInst, xml.Directive:
			if depth == 0 {
				return false
			}
		}
	}
}
