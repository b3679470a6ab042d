package signpost

// AboutPage is the schema.org type of a landing page: the "type" link of
// an identifier whose URL serves its landing page in place.
const AboutPage = "https://schema.org/AboutPage"

// The media types of a linkset (RFC 9264).
const (
	LinksetJSON = "application/linkset+json"
	LinksetText = "application/linkset"
)

// MaxAuthors is how many "author" links a Subject keeps, the first ones
// in the record's order: a paper with 3,000 authors must not make every
// answer carry 3,000 links.
const MaxAuthors = 10

// Format is a representation of an identifier's metadata.
type Format struct {
	// Name is its name in the format's own URL, "?info=<Name>".
	Name string
	// MediaType is its media type.
	MediaType string
}

// Subject is what the signposting of one identifier says: what the
// links of its answers and its linkset are made of.
type Subject struct {
	// URL is the identifier's canonical URL: the target of "cite-as" and
	// the anchor of its links.
	URL string
	// LandingPage says that URL serves the landing page itself (an
	// identifier served in place): it is typed schema.org AboutPage.
	LandingPage bool
	// Types are the schema.org types of the referent, as URLs.
	Types []string
	// License is the URL of the referent's licence, or "".
	License string
	// Authors are the URLs of the referent's creators (ORCIDs, ...), at
	// most MaxAuthors.
	Authors []string
	// Items are the content resources of the referent.
	Items []Item
	// Successor is the URL of what replaces a withdrawn identifier, or "".
	Successor string
	// Formats are the metadata formats the identifier answers in, each at
	// MetadataURL.
	Formats []Format
}

// NewSubject returns the Subject of the identifier at url with its
// metadata formats, keeping from types, license, authors, items and
// successor only what makes a valid link target: absolute http(s) URLs,
// items with a media type when it is one.
func NewSubject(url string, landingPage bool, formats []Format, types []string, license string, authors []string, items []Item, successor string) *Subject {
	s := &Subject{URL: url, LandingPage: landingPage, Formats: formats, License: linkURL(license), Successor: linkURL(successor)}
	for _, t := range types {
		if u := linkURL(t); u != "" {
			s.Types = append(s.Types, u)
		}
	}
	for _, a := range authors {
		if u := linkURL(a); u != "" && len(s.Authors) < MaxAuthors {
			s.Authors = append(s.Authors, u)
		}
	}
	for _, it := range items {
		if u := linkURL(it.Href); u != "" {
			s.Items = append(s.Items, Item{Href: u, Type: mediaType(it.Type)})
		}
	}
	return s
}

// MetadataURL is the URL of the identifier's metadata in format f, for
// clients that cannot set Accept: the identifier's URL with "?info=" and
// the format's name.
func (s *Subject) MetadataURL(f Format) string {
	return s.URL + "?info=" + f.Name
}

// InfoURL is the URL of the identifier's ?info, its ERC record.
func (s *Subject) InfoURL() string { return s.URL + "?info" }

// LinksetURL is the URL of the identifier's linkset in mediaType
// (LinksetJSON or LinksetText).
func (s *Subject) LinksetURL(mediaType string) string {
	if mediaType == LinksetJSON {
		return s.URL + "?info=linkset-json"
	}
	return s.URL + "?info=linkset"
}

// Links returns the links whose context is the identifier, in the order
// of their importance: cite-as, the linksets, the types, the licence, the
// successor, the ERC record and the metadata formats, the items, the
// authors.
func (s *Subject) Links() []Link {
	links := []Link{{Href: s.URL, Rel: "cite-as"},
		{Href: s.LinksetURL(LinksetJSON), Rel: "linkset", Type: LinksetJSON},
		{Href: s.LinksetURL(LinksetText), Rel: "linkset", Type: LinksetText}}
	if s.LandingPage {
		links = append(links, Link{Href: AboutPage, Rel: "type"})
	}
	for _, t := range s.Types {
		links = append(links, Link{Href: t, Rel: "type"})
	}
	if s.License != "" {
		links = append(links, Link{Href: s.License, Rel: "license"})
	}
	if s.Successor != "" {
		links = append(links, Link{Href: s.Successor, Rel: "successor-version"})
	}
	links = append(links, Link{Href: s.InfoURL(), Rel: "describedby", Type: "text/plain"})
	for _, f := range s.Formats {
		links = append(links, Link{Href: s.MetadataURL(f), Rel: "describedby", Type: f.MediaType})
	}
	for _, it := range s.Items {
		links = append(links, Link{Href: it.Href, Rel: "item", Type: it.Type})
	}
	for _, a := range s.Authors {
		links = append(links, Link{Href: a, Rel: "author"})
	}
	return links
}
