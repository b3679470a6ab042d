package metadata

import (
	"reflect"
	"testing"
)

// spec's example of a whole-record "datacite" element, as EZID's API
// document shows it (kernel-3), with an ORCID and a specific type added.
const dataciteXML = `<?xml version="1.0"?>
<resource xmlns="http://datacite.org/schema/kernel-3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <identifier identifierType="ARK">13030/m5qz2bmh</identifier>
  <creators><creator><creatorName>Zhang, Yu</creatorName><nameIdentifier nameIdentifierScheme="ORCID">0000-0002-1825-0097</nameIdentifier></creator>
    <creator><familyName>Curie</familyName><givenName>Marie</givenName></creator></creators>
  <titles><title titleType="Subtitle">By concordance</title><title>Patterns of age-related water diffusion changes</title></titles>
  <publisher>University of California, San Francisco</publisher>
  <publicationYear>2012</publicationYear>
  <subjects><subject>DTI</subject><subject> brain </subject></subjects>
  <language>en</language>
  <resourceType resourceTypeGeneral="Dataset">MRI scans</resourceType>
  <descriptions><description descriptionType="Other">Other</description><description descriptionType="Abstract">In diffusion tensor imaging</description></descriptions>
</resource>`

func TestDataCiteXMLIsRead(t *testing.T) {
	id := Identifier{ID: "ark:13030/m5qz2bmh", URL: "https://ark.example.org/ark:13030/m5qz2bmh", Status: 302}
	r := New(id, map[string]string{"_profile": "datacite", "datacite": dataciteXML, "datacite.title": "Element title", "datacite.publisher": "Element publisher"}, nil, "Org")
	got := map[string]any{"title": r.Title, "publisher": r.Publisher, "year": r.Date.Year, "type": r.Type, "description": r.Description,
		"subjects": r.Subjects, "language": r.Language, "creators": len(r.Creators)}
	want := map[string]any{"title": "Patterns of age-related water diffusion changes", "publisher": "University of California, San Francisco", "year": 2012,
		"type": ResourceType{General: "Dataset", Specific: "MRI scans"}, "description": "In diffusion tensor imaging",
		"subjects": []string{"DTI", "brain"}, "language": "en", "creators": 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read:\n%v\nwant\n%v", got, want)
	}
	if c := r.Creators[0]; c.Family != "Zhang" || c.Given != "Yu" || c.URI != "https://orcid.org/0000-0002-1825-0097" {
		t.Errorf("first creator %+v", c)
	}
	if c := r.Creators[1]; c.Family != "Curie" || c.Given != "Marie" {
		t.Errorf("second creator %+v", c)
	}
	// The document is kept as written.
	if r.Meta["datacite"] != dataciteXML || r.Meta["datacite.title"] != "Element title" {
		t.Errorf("meta changed")
	}
}

func TestDataCiteXMLNotADocument(t *testing.T) {
	r := New(Identifier{ID: "ark:12345/x"}, map[string]string{"datacite": "<resource><titles>", "datacite.title": "T"}, nil, "")
	if r.Title != "T" {
		t.Errorf("a document that does not parse: title %q", r.Title)
	}
}
