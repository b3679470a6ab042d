package schemaorg

import (
	"strings"

	"github.com/caddy-ark/caddy-ark/metadata"
)

// Describe is the record as a schema.org node: the referent, named by
// the identifier's canonical URL, with the properties of
// docs/metadata-model.md's crosswalk.
func Describe(r *metadata.Record) *Node {
	n := &Node{ID: r.URL, Type: r.Type.SchemaOrg()}
	n.add("identifier", text(r.ID)...)
	n.add("url", iri(landing(r))...)
	n.add("name", text(r.Title)...)
	n.add("additionalType", text(r.Type.Specific)...)
	var creators []Value
	for _, c := range r.Creators {
		creators = append(creators, Value{Node: creator(c)})
	}
	n.add("creator", creators...)
	if d := r.Date.ISO(); d != "" {
		n.add("datePublished", Value{Text: d, Date: true})
	}
	if r.Publisher != "" {
		org := &Node{Type: "Organization"}
		org.add("name", text(r.Publisher)...)
		n.add("publisher", Value{Node: org})
	}
	if r.License.URI != "" {
		n.add("license", iri(r.License.URI)...)
	} else {
		n.add("license", text(r.License.Text)...)
	}
	n.add("description", text(r.Description)...)
	n.add("inLanguage", text(r.Language)...)
	var keywords []Value
	for _, s := range r.Subjects {
		keywords = append(keywords, Value{Text: s})
	}
	n.add("keywords", keywords...)
	items(n, r)
	if wd := r.Withdrawal; wd != nil {
		n.add("creativeWorkStatus", text("Withdrawn")...)
		if d := wd.Date.ISO(); d != "" {
			n.add("expires", Value{Text: d, Date: true})
		}
		n.add("conditionsOfAccess", text(wd.Statement())...)
		if wd.Successor != nil {
			n.add("dcterms:isReplacedBy", iri(wd.Successor.URL)...)
		}
	}
	return n
}

// landing is the referent's URL: where, when it is a URL, else the
// target, else the canonical URL (a referent served in place).
func landing(r *metadata.Record) string {
	if strings.HasPrefix(r.Where, "https://") || strings.HasPrefix(r.Where, "http://") {
		return r.Where
	}
	if r.Target != "" {
		return r.Target
	}
	return r.URL
}

// creator is a creator's node: a Person when written "Family, Given" or
// identified by an ORCID, an Organization when identified by a ROR ID,
// else a node with a name only (the record does not say which it is).
func creator(c metadata.Creator) *Node {
	n := &Node{ID: c.URI}
	switch {
	case c.Personal() || c.ORCID() != "":
		n.Type = "Person"
	case strings.HasPrefix(c.URI, "https://ror.org/"):
		n.Type = "Organization"
	}
	n.add("name", text(c.Name)...)
	n.add("givenName", text(c.Given)...)
	n.add("familyName", text(c.Family)...)
	return n
}

// items adds the content resources: a Dataset's distribution
// (DataDownload), any other work's associatedMedia (MediaObject), each
// with its contentUrl and encodingFormat.
func items(n *Node, r *metadata.Record) {
	property, typ := "associatedMedia", "MediaObject"
	if r.Type.General == "Dataset" {
		property, typ = "distribution", "DataDownload"
	}
	var values []Value
	for _, it := range r.Items {
		item := &Node{Type: typ}
		item.add("contentUrl", iri(it.URL)...)
		item.add("encodingFormat", text(it.Type)...)
		values = append(values, Value{Node: item})
	}
	n.add(property, values...)
}
