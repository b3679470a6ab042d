package metadata

// The documented meta names. An entry's meta map keeps them beside any
// other keys; each has one meaning in every format.
const (
	// KeyWho names the creators: several separated by ";", each "Family,
	// Given" (a person) or a name as written, optionally followed by a URI
	// in angle brackets, such as an ORCID: "Curie, Marie
	// <https://orcid.org/0000-0002-1825-0097>".
	KeyWho = "who"
	// KeyWhat is the title.
	KeyWhat = "what"
	// KeyWhen is the date of publication or creation: a year ("1903"), an
	// ISO 8601 date ("1903-05", "1903-05-17", or a date-time whose date is
	// taken) or an ERC date (the same, or a range "1901-1905" whose first
	// year counts).
	KeyWhen = "when"
	// KeyWhere is the referent's location, when it is not the identifier's
	// canonical URL.
	KeyWhere = "where"
	// KeyType is a DataCite resourceTypeGeneral ("Dataset", "Text", "Image",
	// "PhysicalObject", …, in any case), optionally followed by "/" and a
	// free-text specific type, as EZID's datacite.resourcetype writes it:
	// "Image/Photograph".
	KeyType = "type"
	// KeyLicense is a URI, or an SPDX license identifier ("CC-BY-4.0"), which
	// stands for https://spdx.org/licenses/CC-BY-4.0.
	KeyLicense = "license"
	// KeyPublisher names who publishes the referent; the site's organization
	// when neither the entry nor a default names one.
	KeyPublisher = "publisher"
	// KeyDescription is a free-text abstract.
	KeyDescription = "description"
	// KeyLanguage is a BCP 47 language tag ("en", "fr-CA").
	KeyLanguage = "language"
	// KeySubject holds keywords separated by ";".
	KeySubject = "subject"
	// KeyItem names content resources of the referent, for signposting: several
	// separated by ";", each a URL optionally followed by whitespace and its
	// media type: "https://example.org/data.csv text/csv". A ";" inside a
	// URL must be written %3B.
	KeyItem = "item"
	// KeySuccessor names what replaces a withdrawn identifier: an ARK or URN
	// (made a URL on this site) or an absolute http(s) URL.
	KeySuccessor = "successor"
	// KeyReason says why an identifier was withdrawn (the tombstone).
	KeyReason = "reason"
	// KeyWithdrawn is the date an identifier was withdrawn, in the syntax of
	// When.
	KeyWithdrawn = "withdrawn"
	// KeyProfile is EZID's _profile: which of EZID's field sets (erc,
	// datacite, dc) is the entry's own, read first among them.
	KeyProfile = "_profile"
)

// ezidFields are, for each documented name, the fields of EZID's profiles
// that say the same: profile name to field.
var ezidFields = map[string]map[string]string{
	KeyWho:         {"datacite": "datacite.creator", "dc": "dc.creator", "erc": "erc.who"},
	KeyWhat:        {"datacite": "datacite.title", "dc": "dc.title", "erc": "erc.what"},
	KeyWhen:        {"datacite": "datacite.publicationyear", "dc": "dc.date", "erc": "erc.when"},
	KeyWhere:       {"erc": "erc.where"},
	KeyType:        {"datacite": "datacite.resourcetype", "dc": "dc.type"},
	KeyPublisher:   {"datacite": "datacite.publisher", "dc": "dc.publisher"},
	KeyDescription: {"datacite": "datacite.description", "dc": "dc.description"},
	KeyLanguage:    {"datacite": "datacite.language", "dc": "dc.language"},
	KeySubject:     {"datacite": "datacite.subject", "dc": "dc.subject"},
}

// profiles is the order in which EZID's field sets are read after the
// entry's own _profile: DataCite's first, as EZID itself gives them
// priority when it writes DataCite metadata.
var profiles = []string{"datacite", "dc", "erc"}

// lookup returns the value of name in meta: the documented name itself,
// else the field of the _profile meta names, else those of the other EZID
// profiles in the order of profiles. Blank values count as absent.
func lookup(meta map[string]string, name string) string {
	if v := clean(meta[name]); v != "" {
		return v
	}
	fields := ezidFields[name]
	if fields == nil {
		return ""
	}
	if field := fields[clean(meta[KeyProfile])]; field != "" {
		if v := clean(meta[field]); v != "" {
			return v
		}
	}
	for _, p := range profiles {
		if v := clean(meta[fields[p]]); v != "" {
			return v
		}
	}
	return ""
}
