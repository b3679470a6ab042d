package metadata

import "strings"

// ResourceType is a DataCite resourceTypeGeneral with an optional
// free-text specific type.
type ResourceType struct {
	// General is the resourceTypeGeneral, spelled as DataCite's vocabulary
	// does ("Dataset"); "" when unknown.
	General string
	// Specific is the free-text type after the "/", e.g. "Photograph".
	Specific string
}

// resourceTypes is DataCite's resourceTypeGeneral vocabulary (Metadata
// Schema 4.7), each mapped to the schema.org type that stands for it.
// The mapping is that of DataCite's own content negotiation (bolognese's
// DC_TO_SO_TRANSLATIONS), except that Text, which bolognese makes a
// ScholarlyArticle, is a CreativeWork, since a text under an ARK is as
// often a manuscript or a page of field notes as an article; a type with
// no schema.org counterpart is a CreativeWork.
var resourceTypes = map[string]string{
	"Audiovisual": "MediaObject", "Award": "Grant", "Book": "Book", "BookChapter": "Chapter",
	"Collection": "Collection", "ComputationalNotebook": "SoftwareSourceCode", "ConferencePaper": "Article",
	"ConferenceProceeding": "Periodical", "DataPaper": "Article", "Dataset": "Dataset", "Dissertation": "Thesis",
	"Event": "Event", "Image": "ImageObject", "Instrument": "CreativeWork", "InteractiveResource": "CreativeWork",
	"Journal": "Periodical", "JournalArticle": "ScholarlyArticle", "Model": "CreativeWork",
	"OutputManagementPlan": "CreativeWork", "PeerReview": "Review", "PhysicalObject": "CreativeWork",
	"Poster": "Poster", "Preprint": "ScholarlyArticle", "Presentation": "PresentationDigitalDocument",
	"Project": "Project", "Report": "Report", "Service": "Service", "Software": "SoftwareSourceCode",
	"Sound": "AudioObject", "Standard": "CreativeWork", "StudyRegistration": "CreativeWork", "Text": "CreativeWork",
	"Workflow": "CreativeWork", "Other": "CreativeWork",
}

// generalTypes are the names of resourceTypes by their lowercase form.
var generalTypes = func() map[string]string {
	m := make(map[string]string, len(resourceTypes))
	for name := range resourceTypes {
		m[strings.ToLower(name)] = name
	}
	return m
}()

// dcmiTypes maps the DCMI Type vocabulary of EZID's dc.type to DataCite's,
// as EZID does.
var dcmiTypes = map[string]string{"movingimage": "Audiovisual", "stillimage": "Image"}

// ParseResourceType reads the type syntax: a resourceTypeGeneral in any
// case, optionally followed by "/" and a specific type ("Image/Photograph");
// a DCMI type (EZID's dc.type) is read as its DataCite counterpart. A
// general type outside the vocabulary is unknown, its text kept as the
// specific type.
func ParseResourceType(v string) ResourceType {
	v = clean(v)
	if v == "" {
		return ResourceType{}
	}
	general, specific, _ := strings.Cut(v, "/")
	general, specific = strings.TrimSpace(general), clean(specific)
	if g, ok := dcmiTypes[strings.ToLower(general)]; ok {
		return ResourceType{General: g, Specific: specific}
	}
	if name, ok := generalTypes[strings.ToLower(general)]; ok {
		return ResourceType{General: name, Specific: specific}
	}
	return ResourceType{Specific: v}
}

// SchemaOrg is the schema.org type of the referent: that of its general
// type, CreativeWork when unknown.
func (t ResourceType) SchemaOrg() string {
	if so := resourceTypes[t.General]; so != "" {
		return so
	}
	return "CreativeWork"
}
