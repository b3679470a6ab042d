package metadata

import (
	"encoding/xml"
	"maps"
	"strings"
)

// KeyDataCiteXML is EZID's whole-record "datacite" element: a DataCite
// Metadata Scheme XML document (any kernel version). Its creators, title,
// publisher, publication year, resource type, abstract, subjects and
// language are read as EZID's datacite.* fields, before the fields
// themselves, as EZID reads them when it writes DataCite metadata.
const KeyDataCiteXML = "datacite"

// dataciteResource is what the model reads of a DataCite XML document,
// matched by local names, whatever the kernel's namespace.
type dataciteResource struct {
	XMLName  xml.Name `xml:"resource"`
	Creators []struct {
		Name        string `xml:"creatorName"`
		Given       string `xml:"givenName"`
		Family      string `xml:"familyName"`
		Identifiers []struct {
			Scheme string `xml:"nameIdentifierScheme,attr"`
			Value  string `xml:",chardata"`
		} `xml:"nameIdentifier"`
	} `xml:"creators>creator"`
	Titles []struct {
		Type  string `xml:"titleType,attr"`
		Value string `xml:",chardata"`
	} `xml:"titles>title"`
	Publisher    string `xml:"publisher"`
	Year         string `xml:"publicationYear"`
	ResourceType struct {
		General string `xml:"resourceTypeGeneral,attr"`
		Value   string `xml:",chardata"`
	} `xml:"resourceType"`
	Descriptions []struct {
		Type  string `xml:"descriptionType,attr"`
		Value string `xml:",chardata"`
	} `xml:"descriptions>description"`
	Subjects []string `xml:"subjects>subject"`
	Language string   `xml:"language"`
}

// withDataCiteXML returns meta with the datacite.* fields that its
// KeyDataCiteXML document gives set from it; meta itself when it has no
// such document, or one that does not parse (it stays an ordinary
// value).
func withDataCiteXML(meta map[string]string) map[string]string {
	doc := meta[KeyDataCiteXML]
	if !strings.Contains(doc, "<") {
		return meta
	}
	var r dataciteResource
	if err := xml.Unmarshal([]byte(doc), &r); err != nil {
		return meta
	}
	fields := map[string]string{
		"datacite.creator":         r.creators(),
		"datacite.title":           r.title(),
		"datacite.publisher":       strings.TrimSpace(r.Publisher),
		"datacite.publicationyear": strings.TrimSpace(r.Year),
		"datacite.resourcetype":    r.resourceType(),
		"datacite.description":     r.abstract(),
		"datacite.subject":         joinTrimmed(r.Subjects),
		"datacite.language":        strings.TrimSpace(r.Language),
	}
	out := maps.Clone(meta)
	for k, v := range fields {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

// creators returns the document's creators as KeyWho writes them: names
// separated by "; ", each "Family, Given" when the document has no
// creatorName, followed by an ORCID or ROR identifier in angle brackets.
func (r *dataciteResource) creators() string {
	var names []string
	for _, c := range r.Creators {
		name := strings.TrimSpace(c.Name)
		if name == "" {
			name = strings.Trim(strings.TrimSpace(c.Family)+", "+strings.TrimSpace(c.Given), ", ")
		}
		if name == "" {
			continue
		}
		for _, id := range c.Identifiers {
			if uri := identifierURI(id.Scheme, strings.TrimSpace(id.Value)); uri != "" {
				name += " <" + uri + ">"
				break
			}
		}
		names = append(names, name)
	}
	return strings.Join(names, "; ")
}

// identifierURI returns a creator's ORCID or ROR identifier as a URI.
func identifierURI(scheme, value string) string {
	switch {
	case value == "":
		return ""
	case strings.HasPrefix(value, "https://"):
		return value
	case strings.EqualFold(scheme, "ORCID"):
		return "https://orcid.org/" + value
	case strings.EqualFold(scheme, "ROR"):
		return "https://ror.org/" + value
	}
	return ""
}

// resourceType returns the document's resource type as EZID's
// datacite.resourcetype writes it: "General/Specific", or "General".
func (r *dataciteResource) resourceType() string {
	general, specific := strings.TrimSpace(r.ResourceType.General), strings.TrimSpace(r.ResourceType.Value)
	switch {
	case general == "":
		return ""
	case specific == "" || specific == general:
		return general
	}
	return general + "/" + specific
}

// title returns the document's main title (one without a titleType), else
// its first.
func (r *dataciteResource) title() string {
	types, values := make([]string, len(r.Titles)), make([]string, len(r.Titles))
	for i, t := range r.Titles {
		types[i], values[i] = t.Type, t.Value
	}
	return pick(types, values, "")
}

// abstract returns the document's abstract, else its first description.
func (r *dataciteResource) abstract() string {
	types, values := make([]string, len(r.Descriptions)), make([]string, len(r.Descriptions))
	for i, d := range r.Descriptions {
		types[i], values[i] = d.Type, d.Value
	}
	return pick(types, values, "Abstract")
}

// pick returns the trimmed value whose type is want, else the first.
func pick(types, values []string, want string) string {
	for i, v := range values {
		if types[i] == want && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	if len(values) > 0 {
		return strings.TrimSpace(values[0])
	}
	return ""
}

// joinTrimmed joins the non-blank values of vs with "; ".
func joinTrimmed(vs []string) string {
	var out []string
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return strings.Join(out, "; ")
}
