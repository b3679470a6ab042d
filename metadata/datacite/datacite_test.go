package datacite_test

import (
	"bytes"
	"encoding/xml"
	"net/url"
	"path/filepath"
	"slices"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/metadata"
	"github.com/caddy-ark/caddy-ark/metadata/datacite"
	"github.com/caddy-ark/caddy-ark/metadata/internal/fixture"
)

// read is what the tests read back from a written document.
type read struct {
	Identifier struct {
		Type  string `xml:"identifierType,attr"`
		Value string `xml:",chardata"`
	} `xml:"identifier"`
	Creators []struct {
		Name       string `xml:"creatorName"`
		Given      string `xml:"givenName"`
		Family     string `xml:"familyName"`
		Identifier []struct {
			Scheme string `xml:"nameIdentifierScheme,attr"`
			Value  string `xml:",chardata"`
		} `xml:"nameIdentifier"`
	} `xml:"creators>creator"`
	Title        string `xml:"titles>title"`
	Publisher    string `xml:"publisher"`
	Year         string `xml:"publicationYear"`
	ResourceType struct {
		General string `xml:"resourceTypeGeneral,attr"`
		Value   string `xml:",chardata"`
	} `xml:"resourceType"`
	Dates   []typed `xml:"dates>date"`
	Related []struct {
		Type     string `xml:"relatedIdentifierType,attr"`
		Relation string `xml:"relationType,attr"`
		Value    string `xml:",chardata"`
	} `xml:"relatedIdentifiers>relatedIdentifier"`
	Rights []struct {
		URI string `xml:"rightsURI,attr"`
		ID  string `xml:"rightsIdentifier,attr"`
	} `xml:"rightsList>rights"`
	Descriptions []typed `xml:"descriptions>description"`
}

// typed is a <date> or <description>: a value with its type.
type typed struct {
	DateType        string `xml:"dateType,attr"`
	DescriptionType string `xml:"descriptionType,attr"`
	Value           string `xml:",chardata"`
}

// TestWriteValidatesAndReadsBack validates every fixture against
// DataCite's kernel-4 XSD with xmllint and reads it back with an XML
// decoder.
func TestWriteValidatesAndReadsBack(t *testing.T) {
	schema, _ := filepath.Abs("testdata/kernel-4/metadata.xsd")
	for _, tc := range fixture.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := datacite.Write(&buf, tc.Record); err != nil {
				t.Fatal(err)
			}
			if err := testkit.ValidateXML(t, schema, buf.Bytes()); err != nil {
				t.Fatalf("%v\n%s", err, buf.Bytes())
			}
			var got read
			if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			check(t, tc.Record, &got)
			checkNameIdentifiers(t, tc, &got)
		})
	}
}

// check compares what was read back with the record written.
func check(t *testing.T, r *metadata.Record, got *read) {
	t.Helper()
	wantID := map[string]string{"ARK": r.ID[len("ark:"):], "URN": r.ID}[r.Scheme]
	if got.Identifier.Type != r.Scheme || got.Identifier.Value != wantID {
		t.Errorf("identifier %+v, want %s %s", got.Identifier, r.Scheme, wantID)
	}
	if len(r.Creators) == 0 {
		if len(got.Creators) != 1 || got.Creators[0].Name != metadata.Unavailable {
			t.Errorf("creators %+v, want one (:unav)", got.Creators)
		}
	} else if len(got.Creators) != len(r.Creators) {
		t.Errorf("%d creators, want %d", len(got.Creators), len(r.Creators))
	}
	for i, c := range r.Creators {
		g := got.Creators[i]
		if g.Name != c.Name || g.Given != c.Given || g.Family != c.Family {
			t.Errorf("creator %d: %+v, want %+v", i, g, c)
		}
		if c.ORCID() != "" && (len(g.Identifier) != 1 || g.Identifier[0].Scheme != "ORCID" || g.Identifier[0].Value != c.URI) {
			t.Errorf("creator %d: name identifiers %+v, want ORCID %s", i, g.Identifier, c.URI)
		}
	}
	if want := or(r.Title, metadata.Unavailable); got.Title != want {
		t.Errorf("title %q, want %q", got.Title, want)
	}
	if want := or(r.Publisher, metadata.Unavailable); got.Publisher != want {
		t.Errorf("publisher %q, want %q", got.Publisher, want)
	}
	if want := or(r.Date.YearString(), "0000"); got.Year != want {
		t.Errorf("publicationYear %q, want %q", got.Year, want)
	}
	if want := or(r.Type.General, "Other"); got.ResourceType.General != want {
		t.Errorf("resourceTypeGeneral %q, want %q", got.ResourceType.General, want)
	}
	if r.License.SPDX != "" && (len(got.Rights) != 1 || got.Rights[0].ID != r.License.SPDX || got.Rights[0].URI != r.License.URI) {
		t.Errorf("rights %+v, want %+v", got.Rights, r.License)
	}
	withdrawn := slices.IndexFunc(got.Descriptions, func(d typed) bool { return d.DescriptionType == "Other" })
	if wd := r.Withdrawal; wd == nil {
		if withdrawn >= 0 || len(got.Related) > 0 {
			t.Errorf("a record in use states a withdrawal: %+v %+v", got.Descriptions, got.Related)
		}
	} else {
		if withdrawn < 0 || got.Descriptions[withdrawn].Value != wd.Statement() {
			t.Errorf("descriptions %+v, want the withdrawal %q", got.Descriptions, wd.Statement())
		}
		hasDate := slices.ContainsFunc(got.Dates, func(d typed) bool { return d.DateType == "Withdrawn" && d.Value == wd.Date.ISO() })
		if hasDate != wd.Date.Known() {
			t.Errorf("dates %+v, want Withdrawn %q", got.Dates, wd.Date.ISO())
		}
		if wd.Successor != nil && (len(got.Related) != 1 || got.Related[0].Relation != "IsObsoletedBy" || got.Related[0].Value != wd.Successor.URL) {
			t.Errorf("related identifiers %+v, want IsObsoletedBy %s", got.Related, wd.Successor.URL)
		}
		if wd.Successor == nil && len(got.Related) > 0 {
			t.Errorf("related identifiers %+v without a successor", got.Related)
		}
	}
}

// or is v, or def when v is empty.
func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// checkNameIdentifiers checks that creators are identified by absolute
// http(s) URIs only, and CreatorURIsCase's creators by exactly the
// fixture's CreatorURIs.
func checkNameIdentifiers(t *testing.T, tc fixture.Case, got *read) {
	t.Helper()
	var ids []string
	for _, c := range got.Creators {
		for _, id := range c.Identifier {
			if u, err := url.Parse(id.Value); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				t.Errorf("creator %q: nameIdentifier %q is not an absolute http(s) URI", c.Name, id.Value)
			}
			ids = append(ids, id.Value)
		}
	}
	if tc.Name == fixture.CreatorURIsCase && !slices.Equal(ids, fixture.CreatorURIs) {
		t.Errorf("nameIdentifiers %q, want %q", ids, fixture.CreatorURIs)
	}
}
