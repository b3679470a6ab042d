// Package dc writes a metadata.Record as unqualified Dublin Core in the
// OAI-PMH's oai_dc container (valid against the OAI's oai_dc.xsd), for
// the oai_dc metadata format every OAI-PMH repository must offer.
//
// The crosswalk: who → dc:creator (each), what → dc:title, when →
// dc:date (ISO 8601 as far as known), type → dc:type (DataCite's
// resourceTypeGeneral, then the specific type), publisher → dc:publisher,
// description → dc:description, subject → dc:subject (each), language →
// dc:language, license → dc:rights (its URI, else its text), where →
// dc:coverage. dc:identifier holds the identifier ("ark:12345/x5wf6789"),
// its canonical URL and, for a redirect, its target. A value the record
// lacks is left out: every element of unqualified Dublin Core is optional.
package dc

import (
	"encoding/xml"
	"io"

	"github.com/caddy-ark/caddy-ark/metadata"
)

// The oai_dc container's namespace and schema, and the Dublin Core
// elements' namespace.
const (
	Namespace      = "http://www.openarchives.org/OAI/2.0/oai_dc/"
	SchemaLocation = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd"
	ElementsNS     = "http://purl.org/dc/elements/1.1/"
)

// Container is the <oai_dc:dc> element of a record.
type Container struct {
	// XMLName is oai_dc:dc.
	XMLName xml.Name `xml:"oai_dc:dc"`
	// XmlnsOAIDC, XmlnsDC and XmlnsXSI declare the namespaces;
	// SchemaLocation points at oai_dc.xsd.
	XmlnsOAIDC     string `xml:"xmlns:oai_dc,attr"`
	XmlnsDC        string `xml:"xmlns:dc,attr"`
	XmlnsXSI       string `xml:"xmlns:xsi,attr"`
	SchemaLocation string `xml:"xsi:schemaLocation,attr"`
	// The Dublin Core elements, in the order of the fifteen.
	Title       []string `xml:"dc:title"`
	Creator     []string `xml:"dc:creator"`
	Subject     []string `xml:"dc:subject"`
	Description []string `xml:"dc:description"`
	Publisher   []string `xml:"dc:publisher"`
	Date        []string `xml:"dc:date"`
	Type        []string `xml:"dc:type"`
	Identifier  []string `xml:"dc:identifier"`
	Language    []string `xml:"dc:language"`
	Coverage    []string `xml:"dc:coverage"`
	Rights      []string `xml:"dc:rights"`
}

// New is the oai_dc container of r.
func New(r *metadata.Record) *Container {
	c := &Container{XmlnsOAIDC: Namespace, XmlnsDC: ElementsNS, XmlnsXSI: "http://www.w3.org/2001/XMLSchema-instance",
		SchemaLocation: Namespace + " " + SchemaLocation}
	c.Title = some(r.Title)
	for _, cr := range r.Creators {
		c.Creator = append(c.Creator, cr.Name)
	}
	c.Subject = r.Subjects
	c.Description = some(r.Description)
	if r.Withdrawal != nil {
		c.Description = append(c.Description, r.Withdrawal.Statement())
	}
	c.Publisher = some(r.Publisher)
	c.Date = some(r.Date.ISO())
	c.Type = append(some(r.Type.General), some(r.Type.Specific)...)
	c.Identifier = append(append(some(r.ID), some(r.URL)...), some(r.Target)...)
	c.Language = some(r.Language)
	c.Coverage = some(r.Where)
	switch {
	case r.License.URI != "":
		c.Rights = []string{r.License.URI}
	case r.License.Text != "":
		c.Rights = []string{r.License.Text}
	}
	return c
}

// Write writes r's oai_dc container as an XML document.
func Write(w io.Writer, r *metadata.Record) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(New(r)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// some is v as a list of one, or none when v is empty.
func some(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}
