package oai

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// TestOAIMetadataDefaults: the licence and publisher metadata_defaults
// give a NAAN are in its records' oai_dc and oai_datacite, as content
// negotiation shows them, and a record's own value wins over a default.
// Every answer is validated against the schemas.
func TestOAIMetadataDefaults(t *testing.T) {
	testkit.NeedTool(t, "xmllint", "libxml2-utils")
	const licence = "https://creativecommons.org/licenses/by/4.0/"
	s := caddytest.StartAPISite(t, oaiBlock+`
		metadata_defaults ark:12345 {
			license `+licence+`
			publisher "Default Publisher"
		}`)
	for id, body := range map[string]string{
		"ark:12345/x5a": `{"target": "https://repo.example.org/a", "meta": {"what": "Defaults only"}}`,
		"ark:12345/x5b": `{"target": "https://repo.example.org/b", "meta": {"what": "Its own", "license": "CC0-1.0", "publisher": "Own Publisher"}}`,
	} {
		if got := s.Call("PUT", "/id/"+id, "editor", body); got.Status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", id, got.Status, got.Body)
		}
	}
	testkit.NextSecond()

	for id, want := range map[string]struct{ rights, publisher string }{
		"ark:12345/x5a": {licence, "Default Publisher"},
		"ark:12345/x5b": {"https://spdx.org/licenses/CC0-1.0", "Own Publisher"},
		"ark:12345/t1":  {licence, "Default Publisher"}, // the table's entry
	} {
		d := decodeOAI(t, oaiGet(s.Site, "verb=GetRecord&metadataPrefix=oai_dc&identifier="+id))
		if r := d.Record; r == nil || r.DC == nil || !slices.Equal(r.DC.Rights, []string{want.rights}) || !slices.Equal(r.DC.Publisher, []string{want.publisher}) {
			t.Errorf("%s oai_dc: %+v, want dc:rights %s and dc:publisher %s", id, d.Record, want.rights, want.publisher)
		}
		d = decodeOAI(t, oaiGet(s.Site, "verb=GetRecord&metadataPrefix=oai_datacite&identifier="+id))
		if r := d.Record; r == nil || r.DataCite == nil || len(r.DataCite.Rights) != 1 || r.DataCite.Rights[0].URI != want.rights || r.DataCite.Publisher != want.publisher {
			t.Errorf("%s oai_datacite: %+v, want rightsURI %s and publisher %s", id, d.Record, want.rights, want.publisher)
		}
	}
	// Negotiation's DataCite says the same of the record.
	if got := s.Get("/ark:12345/x5a?info=datacite"); got.Status != http.StatusOK || !strings.Contains(got.Body, `rightsURI="`+licence+`"`) {
		t.Errorf("?info=datacite: %d %s", got.Status, got.Body)
	}
}
