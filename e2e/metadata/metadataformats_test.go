package metadata

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"

	"github.com/piprate/json-gold/ld"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// runTool runs a reader on doc and returns what it wrote, failing the
// test when it refuses doc.
func runTool(t *testing.T, doc []byte, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = bytes.NewReader(doc)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s\n%s", filepath.Base(name), err, stderr.String(), doc)
	}
	return string(out)
}

// offlineSchemaOrg serves the schema.org JSON-LD context from the copy in
// metadata/schemaorg/testdata, and refuses every other URL.
type offlineSchemaOrg struct{ context any }

func (l offlineSchemaOrg) LoadDocument(u string) (*ld.RemoteDocument, error) {
	if strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://"), "/") != "schema.org" {
		return nil, os.ErrNotExist
	}
	return &ld.RemoteDocument{DocumentURL: u, Document: l.context}, nil
}

// metadataFormatsServed are the formats an ARK answers in, as the docs
// list them: the name of each one's own URL, its media types (its own
// first), and the Content-Type of its answers by media type.
var metadataFormatsServed = []struct {
	name        string
	mediaTypes  []string
	contentType map[string]string
}{
	{"datacite", []string{"application/vnd.datacite.datacite+xml"}, nil},
	{"schemaorg", []string{"application/ld+json", "application/vnd.schemaorg.ld+json"}, nil},
	{"csl", []string{"application/vnd.citationstyles.csl+json"}, nil},
	{"bibtex", []string{"application/x-bibtex"}, map[string]string{"application/x-bibtex": "application/x-bibtex; charset=utf-8"}},
	{"ris", []string{"application/x-research-info-systems"}, map[string]string{"application/x-research-info-systems": "application/x-research-info-systems; charset=utf-8"}},
	{"citation", []string{"text/x-bibliography"}, map[string]string{"text/x-bibliography": "text/x-bibliography; charset=utf-8"}},
	{"turtle", []string{"text/turtle"}, map[string]string{"text/turtle": "text/turtle; charset=utf-8"}},
	{"linkset-json", []string{"application/linkset+json"}, nil},
	{"linkset", []string{"application/linkset"}, nil},
}

// Every metadata format answers at its own URL, by Accept on ?info and
// through the 303 of a plain ARK, byte for byte the same, for a record
// with metadata (non-ASCII too), one without, and a tombstone; each is
// read by a reader made for it.
func TestMetadataFormatsThroughCaddy(t *testing.T) {
	rapper := testkit.NeedTool(t, "rapper", "raptor2-utils")
	bib2xml := testkit.NeedTool(t, "bib2xml", "bibutils")
	ris2xml := testkit.NeedTool(t, "ris2xml", "bibutils")
	xsd, _ := filepath.Abs(caddytest.ModuleRoot(t) + "/metadata/datacite/testdata/kernel-4/metadata.xsd")
	cslSchema, err := jsonschema.NewCompiler().Compile(caddytest.ModuleRoot(t) + "/metadata/csl/testdata/csl-data.json")
	if err != nil {
		t.Fatal(err)
	}
	contextFile, err := os.Open(caddytest.ModuleRoot(t) + "/metadata/schemaorg/testdata/schemaorgcontext.jsonld")
	if err != nil {
		t.Fatal(err)
	}
	context, err := ld.DocumentFromReader(contextFile)
	contextFile.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := signpostSite(t, "")
	for _, key := range []string{"ark:12345/sp1", "ark:12345/bare", "ark:12345/gone"} {
		url := s.Base + "/" + key
		for _, f := range metadataFormatsServed {
			contentType := func(mediaType string) string {
				if ct, ok := f.contentType[mediaType]; ok {
					return ct
				}
				return mediaType
			}
			own := s.Get("/" + key + "?info=" + f.name)
			if own.Status != 200 || own.Header.Get("Content-Type") != contentType(f.mediaTypes[0]) ||
				own.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(strings.Join(own.Header.Values("Link"), ","), "<"+url+`>; rel="describes"`) {
				t.Fatalf("%s?info=%s: %d %v\n%s", key, f.name, own.Status, own.Header, own.Body)
			}
			for _, mediaType := range f.mediaTypes {
				byInfo := s.Do(http.MethodGet, "/"+key+"?info", http.Header{"Accept": {mediaType}})
				if byInfo.Body != own.Body || byInfo.Header.Get("Content-Type") != contentType(mediaType) {
					t.Errorf("%s?info, Accept %s: %d %q differs from ?info=%s", key, mediaType, byInfo.Status, byInfo.Header.Get("Content-Type"), f.name)
				}
				redirect := s.Do(http.MethodGet, "/"+key, http.Header{"Accept": {mediaType}})
				if redirect.Status != http.StatusSeeOther || redirect.Location != url+"?info="+f.name {
					t.Errorf("%s, Accept %s: %d %q", key, mediaType, redirect.Status, redirect.Location)
				}
			}
			doc := []byte(own.Body)
			switch f.name {
			case "datacite":
				if err := testkit.ValidateXML(t, xsd, doc); err != nil {
					t.Fatalf("%s: %v\n%s", key, err, doc)
				}
				var resource struct {
					Identifier struct {
						Type  string `xml:"identifierType,attr"`
						Value string `xml:",chardata"`
					} `xml:"identifier"`
				}
				if err := xml.Unmarshal(doc, &resource); err != nil || resource.Identifier.Type != "ARK" || resource.Identifier.Value != strings.TrimPrefix(key, "ark:") {
					t.Errorf("%s DataCite identifier %+v (%v)", key, resource.Identifier, err)
				}
			case "schemaorg":
				var input any
				if err := json.Unmarshal(doc, &input); err != nil {
					t.Fatalf("%s JSON-LD: %v", key, err)
				}
				opts := ld.NewJsonLdOptions("")
				opts.DocumentLoader = offlineSchemaOrg{context}
				opts.Format = "application/n-quads"
				nquads, err := ld.NewJsonLdProcessor().ToRDF(input, opts)
				if err != nil || !strings.Contains(nquads.(string), "<"+url+">") {
					t.Errorf("%s JSON-LD to RDF: %v\n%v", key, err, nquads)
				}
				if key == "ark:12345/sp1" && !strings.Contains(nquads.(string), `<http://schema.org/name> "Données de test"`) {
					t.Errorf("%s JSON-LD: no name in\n%s", key, nquads)
				}
			case "turtle":
				nt := runTool(t, doc, rapper, "--quiet", "--input", "turtle", "--output", "ntriples", "-", url)
				if !strings.Contains(nt, "<"+url+">") {
					t.Errorf("%s Turtle: no statement about %s:\n%s", key, url, nt)
				}
			case "csl":
				item, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
				if err != nil {
					t.Fatal(err)
				}
				if err := cslSchema.Validate([]any{item}); err != nil { // the schema is of a list of items
					t.Errorf("%s CSL-JSON: %v\n%s", key, err, doc)
				}
			case "bibtex", "ris":
				tool := map[string]string{"bibtex": bib2xml, "ris": ris2xml}[f.name]
				mods := runTool(t, doc, tool, "-i", "utf8", "-un", "-nt")
				var collection struct {
					Records []struct {
						Titles []string `xml:"titleInfo>title"`
					} `xml:"mods"`
				}
				if err := xml.Unmarshal([]byte(mods), &collection); err != nil || len(collection.Records) != 1 {
					t.Errorf("%s %s: %d records (%v)\n%s", key, f.name, len(collection.Records), err, doc)
				} else if key == "ark:12345/sp1" && !strings.Contains(strings.Join(collection.Records[0].Titles, " "), "Données de test") {
					t.Errorf("%s %s: titles %q", key, f.name, collection.Records[0].Titles)
				}
			case "citation":
				if !strings.Contains(own.Body, url) {
					t.Errorf("%s citation cites no URL: %q", key, own.Body)
				}
			}
		}
	}
	// A citation style: by Accept's parameter, carried into the 303, or
	// by the query; an unknown one is refused, saying which there are.
	if got := s.Do(http.MethodGet, "/ark:12345/sp1", http.Header{"Accept": {"text/x-bibliography; style=apa"}}); got.Location != s.Base+"/ark:12345/sp1?info=citation&style=apa" {
		t.Errorf("citation with a style: %d %q", got.Status, got.Location)
	}
	if got := s.Get("/ark:12345/sp1?info=citation&style=mla"); got.Status != 400 || !strings.Contains(got.Body, "apa") {
		t.Errorf("an unknown style: %d %q", got.Status, got.Body)
	}
}
