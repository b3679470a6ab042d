package ezid

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

// dataciteRecord is a whole-record "datacite" element as "Profile
// datacite" shows it, its <identifier> of type typ holding text.
func dataciteRecord(typ, text string) string {
	return `<?xml version="1.0"?>
<resource xmlns="http://datacite.org/schema/kernel-4">
  <identifier identifierType="` + typ + `">` + text + `</identifier>
  <creators><creator><creatorName>Proust, Marcel</creatorName></creator></creators>
  <titles><title>Remembrance of Things Past</title></titles>
  <publisher>Gallimard</publisher><publicationYear>1922</publicationYear>
  <resourceType resourceTypeGeneral="Text">Novel</resourceType>
</resource>`
}

// TestEZIDDataCiteRecord follows "Profile datacite": EZID sets the
// identifier embedded in a whole-record datacite element to the
// identifier operated on (the minted one for a mint), and a record that
// is not a DataCite record with an <identifier> of the identifier's type
// is refused in EZID's words, changing nothing.
func TestEZIDDataCiteRecord(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	body := anvl.Format([]anvl.Element{{Name: "_target", Value: "https://example.org/p"}, {Name: "datacite", Value: dataciteRecord("ARK", "(:tba)")}})
	a := s.call("POST", "/shoulder/ark:/12345/x5", body, "basic", alice)
	line, _, _ := strings.Cut(a.Body, "\n")
	minted := strings.TrimPrefix(line, "success: ")
	s.expect(a, http.StatusCreated, "success: "+minted)
	m := s.expect(s.call("GET", "/id/"+minted, ""), http.StatusOK, "success: "+minted)
	if want := dataciteRecord("ARK", strings.TrimPrefix(minted, "ark:/")); m["datacite"] != want {
		t.Errorf("the minted identifier's record:\n%s\nwant\n%s", m["datacite"], want)
	}

	s.expect(s.call("PUT", "/id/ark:/12345/x5dc", "_target: https://example.org/dc\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5dc")
	before := s.call("GET", "/id/ark:/12345/x5dc", "").Body
	for record, reason := range map[string]string{
		"<resource><titles>": "XML parse error",
		"<record><identifier identifierType=\"ARK\">x</identifier></record>":                                  "Not a DataCite record",
		strings.Replace(dataciteRecord("ARK", "x"), `<identifier identifierType="ARK">x</identifier>`, "", 1): "Malformed DataCite record: no <identifier> element",
		dataciteRecord("DOI", "10.9999/X"):                                                                    "Mismatch between identifier type and <identifier> element",
	} {
		a := s.call("POST", "/id/ark:/12345/x5dc", anvl.Format([]anvl.Element{{Name: "datacite", Value: record}}), "basic", alice)
		first, _, _ := strings.Cut(a.Body, "\n")
		if a.Status != http.StatusBadRequest || !strings.HasPrefix(first, "error: bad request - datacite: metadata validation error: "+reason) {
			t.Errorf("%q: %d %q, want 400 with %q", record, a.Status, a.Body, reason)
		}
	}
	if after := s.call("GET", "/id/ark:/12345/x5dc", "").Body; after != before {
		t.Errorf("a refused record changed the identifier:\n%s\nwas\n%s", after, before)
	}
	s.expect(s.call("PUT", "/id/ark:/12345/x5dd", anvl.Format([]anvl.Element{{Name: "datacite", Value: "<resource>"}}), "basic", alice), http.StatusBadRequest,
		"error: bad request - datacite: metadata validation error: XML parse error: XML syntax error on line 1: unexpected EOF")
	s.expect(s.call("GET", "/id/ark:/12345/x5dd", "", "basic", alice), http.StatusBadRequest, "error: bad request - no such identifier")
}
