// Package datacite writes a metadata.Record as DataCite XML, Metadata
// Schema kernel 4 (valid against DataCite's kernel-4 XSD, version 4.7).
//
// An ARK is the record's identifier with identifierType="ARK" and, as
// EZID writes it, without its "ark:" label: "12345/x5wf6789". Kernel 4
// leaves identifierType free (kernel 4.0 to 4.7 declare no restriction),
// so this is schema-valid as it is. A URN is identifierType="URN" with its
// "urn:" label. The identifier's canonical URL follows as an
// alternateIdentifier of type URL.
//
// Required values the record lacks are DataCite's "(:unav)" (creator,
// title, publisher; resourceTypeGeneral "Other" with "(:unav)" as its
// text, as EZID does), and publicationYear "0000", as EZID writes it: the
// schema's yearType admits four digits only. A withdrawn record has a
// <date dateType="Withdrawn"> when its date is known, the withdrawal
// statement as a description of type Other, and its successor as a
// relatedIdentifier with relationType IsObsoletedBy.
package datacite

import (
	"encoding/xml"
	"io"
	"strings"

	"github.com/caddy-ark/caddy-ark/metadata"
)

// MediaType is the media type of DataCite XML.
const MediaType = "application/vnd.datacite.datacite+xml"

// Namespace is the kernel-4 namespace, and SchemaLocation where its XSD is
// published.
const (
	Namespace      = "http://datacite.org/schema/kernel-4"
	SchemaLocation = "http://schema.datacite.org/meta/kernel-4/metadata.xsd"
)

// unknownYear is the publicationYear EZID writes when none is known.
const unknownYear = "0000"

// Resource is the <resource> element of kernel 4, as far as a Record
// fills it. OAI-PMH's oai_datacite embeds it.
type Resource struct {
	// XMLName is the element's name, resource.
	XMLName xml.Name `xml:"resource"`
	// Xmlns and XmlnsXSI declare the kernel-4 and XML Schema instance
	// namespaces; SchemaLocation points at the kernel-4 XSD.
	Xmlns          string `xml:"xmlns,attr"`
	XmlnsXSI       string `xml:"xmlns:xsi,attr"`
	SchemaLocation string `xml:"xsi:schemaLocation,attr"`
	// Identifier is the ARK or URN, with its identifierType.
	Identifier typedValue `xml:"identifier"`
	// Creators are the creators; one "(:unav)" when unknown.
	Creators []creator `xml:"creators>creator"`
	// Titles is the title; "(:unav)" when unknown.
	Titles []title `xml:"titles>title"`
	// Publisher is the publisher; "(:unav)" when unknown.
	Publisher string `xml:"publisher"`
	// PublicationYear is the year; "0000" when unknown.
	PublicationYear string `xml:"publicationYear"`
	// ResourceType is the resourceTypeGeneral and specific type.
	ResourceType resourceType `xml:"resourceType"`
	// Subjects are the keywords.
	Subjects *list[string] `xml:"subjects,omitempty"`
	// Dates are the Issued and Withdrawn dates.
	Dates *list[date] `xml:"dates,omitempty"`
	// Language is the BCP 47 language tag.
	Language string `xml:"language,omitempty"`
	// AlternateIDs hold the canonical URL.
	AlternateIDs *list[alternateID] `xml:"alternateIdentifiers,omitempty"`
	// RelatedIdentifiers hold a tombstone's successor.
	RelatedIdentifiers *list[relatedIdentifier] `xml:"relatedIdentifiers,omitempty"`
	// Rights is the licence.
	Rights *list[rights] `xml:"rightsList,omitempty"`
	// Descriptions are the abstract and a tombstone's statement.
	Descriptions *list[description] `xml:"descriptions,omitempty"`
}

// list is an optional wrapper element; its items take their element name
// from the wrapper's field (see itemNames).
type list[T any] struct {
	Items []T
}

// itemNames are the names of the elements each wrapper holds.
var itemNames = map[string]string{"subjects": "subject", "dates": "date", "alternateIdentifiers": "alternateIdentifier",
	"relatedIdentifiers": "relatedIdentifier", "rightsList": "rights", "descriptions": "description"}

// MarshalXML writes the wrapper with one element per item.
func (l *list[T]) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	item := xml.StartElement{Name: xml.Name{Local: itemNames[start.Name.Local]}}
	for _, it := range l.Items {
		if err := e.EncodeElement(it, item); err != nil {
			return err
		}
	}
	return e.EncodeToken(start.End())
}

// listOf is a wrapper of items, nil when there are none.
func listOf[T any](items ...T) *list[T] {
	if len(items) == 0 {
		return nil
	}
	return &list[T]{Items: items}
}

// typedValue is an <identifier> with its identifierType.
type typedValue struct {
	Type  string `xml:"identifierType,attr"`
	Value string `xml:",chardata"`
}

// creator is a <creator>.
type creator struct {
	Name           creatorName      `xml:"creatorName"`
	GivenName      string           `xml:"givenName,omitempty"`
	FamilyName     string           `xml:"familyName,omitempty"`
	NameIdentifier []nameIdentifier `xml:"nameIdentifier,omitempty"`
}

// creatorName is a <creatorName> with its nameType.
type creatorName struct {
	NameType string `xml:"nameType,attr,omitempty"`
	Value    string `xml:",chardata"`
}

// nameIdentifier is a creator's identifier with its scheme.
type nameIdentifier struct {
	Scheme    string `xml:"nameIdentifierScheme,attr"`
	SchemeURI string `xml:"schemeURI,attr,omitempty"`
	Value     string `xml:",chardata"`
}

// title is a <title> with its language.
type title struct {
	Lang  string `xml:"xml:lang,attr,omitempty"`
	Value string `xml:",chardata"`
}

// resourceType is the <resourceType>: a resourceTypeGeneral and text.
type resourceType struct {
	General string `xml:"resourceTypeGeneral,attr"`
	Value   string `xml:",chardata"`
}

// date is a <date> with its dateType.
type date struct {
	Type  string `xml:"dateType,attr"`
	Value string `xml:",chardata"`
}

// alternateID is an <alternateIdentifier> with its type.
type alternateID struct {
	Type  string `xml:"alternateIdentifierType,attr"`
	Value string `xml:",chardata"`
}

// relatedIdentifier is a <relatedIdentifier> with its type and relation.
type relatedIdentifier struct {
	Type     string `xml:"relatedIdentifierType,attr"`
	Relation string `xml:"relationType,attr"`
	Value    string `xml:",chardata"`
}

// rights is a <rights> statement.
type rights struct {
	URI        string `xml:"rightsURI,attr,omitempty"`
	Identifier string `xml:"rightsIdentifier,attr,omitempty"`
	Scheme     string `xml:"rightsIdentifierScheme,attr,omitempty"`
	SchemeURI  string `xml:"schemeURI,attr,omitempty"`
	Value      string `xml:",chardata"`
}

// description is a <description> with its type and language.
type description struct {
	Type  string `xml:"descriptionType,attr"`
	Lang  string `xml:"xml:lang,attr,omitempty"`
	Value string `xml:",chardata"`
}

// Write writes r as a DataCite XML document.
func Write(w io.Writer, r *metadata.Record) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(NewResource(r)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// NewResource is the <resource> element of r.
func NewResource(r *metadata.Record) *Resource {
	res := &Resource{Xmlns: Namespace, XmlnsXSI: "http://www.w3.org/2001/XMLSchema-instance",
		SchemaLocation: Namespace + " " + SchemaLocation, Identifier: identifier(r),
		Titles: []title{{Lang: r.Language, Value: orUnavailable(r.Title)}}, Publisher: orUnavailable(r.Publisher),
		PublicationYear: r.Date.YearString(), Subjects: listOf(r.Subjects...), Language: r.Language}
	if res.PublicationYear == "" {
		res.PublicationYear = unknownYear
	}
	for _, c := range r.Creators {
		res.Creators = append(res.Creators, newCreator(c))
	}
	if len(res.Creators) == 0 {
		res.Creators = []creator{{Name: creatorName{Value: metadata.Unavailable}}}
	}
	res.ResourceType = resourceType{General: r.Type.General, Value: r.Type.Specific}
	if r.Type.General == "" {
		res.ResourceType = resourceType{General: "Other", Value: metadata.Unavailable}
	}
	var dates []date
	var descriptions []description
	var related []relatedIdentifier
	if d := r.Date.ISO(); d != "" {
		dates = append(dates, date{Type: "Issued", Value: d})
	}
	if r.URL != "" {
		res.AlternateIDs = listOf(alternateID{Type: "URL", Value: r.URL})
	}
	if r.License.Known() {
		res.Rights = listOf(newRights(r.License))
	}
	if r.Description != "" {
		descriptions = append(descriptions, description{Type: "Abstract", Lang: r.Language, Value: r.Description})
	}
	if wd := r.Withdrawal; wd != nil {
		if d := wd.Date.ISO(); d != "" {
			dates = append(dates, date{Type: "Withdrawn", Value: d})
		}
		descriptions = append(descriptions, description{Type: "Other", Value: wd.Statement()})
		if wd.Successor != nil {
			related = append(related, relatedIdentifier{Type: "URL", Relation: "IsObsoletedBy", Value: wd.Successor.URL})
		}
	}
	res.Dates, res.Descriptions, res.RelatedIdentifiers = listOf(dates...), listOf(descriptions...), listOf(related...)
	return res
}

// identifier is the record's <identifier>: an ARK without its label, as
// EZID writes it, or a URN as it is.
func identifier(r *metadata.Record) typedValue {
	if r.Scheme == "ARK" {
		return typedValue{Type: "ARK", Value: strings.TrimPrefix(strings.TrimPrefix(r.ID, "ark:"), "/")}
	}
	return typedValue{Type: r.Scheme, Value: r.ID}
}

// newCreator is the <creator> of c: Personal when written "Family, Given",
// with its URI as a nameIdentifier (scheme ORCID, ROR or URI).
func newCreator(c metadata.Creator) creator {
	out := creator{Name: creatorName{Value: c.Name}}
	if c.Personal() {
		out.Name.NameType, out.GivenName, out.FamilyName = "Personal", c.Given, c.Family
	}
	switch {
	case c.ORCID() != "":
		out.NameIdentifier = []nameIdentifier{{Scheme: "ORCID", SchemeURI: "https://orcid.org", Value: c.URI}}
	case strings.HasPrefix(c.URI, "https://ror.org/"):
		out.Name.NameType = "Organizational"
		out.NameIdentifier = []nameIdentifier{{Scheme: "ROR", SchemeURI: "https://ror.org", Value: c.URI}}
	case c.URI != "":
		out.NameIdentifier = []nameIdentifier{{Scheme: "URI", Value: c.URI}}
	}
	return out
}

// newRights is the <rights> of l: an SPDX identifier with its scheme, or
// a URI, or text.
func newRights(l metadata.License) rights {
	out := rights{URI: l.URI, Value: l.Text}
	if l.SPDX != "" {
		out.Identifier, out.Scheme, out.SchemeURI, out.Value = l.SPDX, "SPDX", "https://spdx.org/licenses/", l.SPDX
	} else if out.Value == "" {
		out.Value = l.URI
	}
	return out
}

// orUnavailable is v, or DataCite's "(:unav)" when v is empty.
func orUnavailable(v string) string {
	if v == "" {
		return metadata.Unavailable
	}
	return v
}
