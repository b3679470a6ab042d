package oai

import (
	"bufio"
	"encoding/xml"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// oaiBlock is the oai block of the OAI-PMH test sites: three records a
// page, so that every list of theirs takes resumption tokens.
const oaiBlock = `oai /oai {
			admin_email admin@example.org
			repository_name "Example ARKs"
			page_size 3
		}`

// needHarvester skips (or under CI fails) the test when Perl's HTTP::OAI
// is not installed.
func needHarvester(t *testing.T) {
	t.Helper()
	perl := testkit.NeedTool(t, "perl", "perl")
	if err := exec.Command(perl, "-MHTTP::OAI", "-e", "1").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("Perl's HTTP::OAI (Debian's libhttp-oai-perl) is required under CI")
		}
		t.Skip("Perl's HTTP::OAI (Debian's libhttp-oai-perl) is not installed")
	}
}

// harvested is one record as the harvester saw it.
type harvested struct {
	id, datestamp string
	deleted       bool
}

// harvest runs HTTP::OAI::Harvester (testdata/harvest.pl) against
// the site's provider, following every resumption token, and returns the
// records in the order listed and the first response's responseDate.
func harvest(t *testing.T, s *caddytest.Site, verb, from, set string) ([]harvested, string) {
	t.Helper()
	out, err := exec.Command("perl", filepath.Join(caddytest.ModuleRoot(t), "e2e", "oai", "testdata", "harvest.pl"), s.Base+"/oai", verb, "oai_dc", from, set).CombinedOutput()
	if err != nil {
		t.Fatalf("harvest %s from %q: %v\n%s", verb, from, err, out)
	}
	var recs []harvested
	var responseDate string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch {
		case len(f) == 2 && f[0] == "responseDate":
			responseDate = f[1]
		case len(f) == 3:
			recs = append(recs, harvested{f[0], f[1], f[2] == "deleted"})
		default:
			t.Fatalf("harvest: unexpected line %q", sc.Text())
		}
	}
	if responseDate == "" {
		t.Fatalf("harvest: no responseDate:\n%s", out)
	}
	return recs, responseDate
}

// byID indexes records by identifier, failing the test on one listed
// twice.
func byID(t *testing.T, what string, recs []harvested) map[string]harvested {
	t.Helper()
	m := map[string]harvested{}
	for _, r := range recs {
		if _, dup := m[r.id]; dup {
			t.Errorf("%s: %s listed twice", what, r.id)
		}
		m[r.id] = r
	}
	return m
}

// oaiGet requests the provider with query and returns the answer, after
// validating it against the OAI-PMH schema and the schemas of the
// metadata it holds (oai/testdata/schemas/all.xsd) with xmllint.
func oaiGet(s *caddytest.Site, query string) caddytest.Answer {
	s.T.Helper()
	got := s.Get("/oai?" + query)
	validOAI(s, query, got)
	return got
}

// oaiPost posts form to the provider, validating the answer likewise.
func oaiPost(s *caddytest.Site, form url.Values) caddytest.Answer {
	s.T.Helper()
	resp, err := caddytest.Client.PostForm(s.Base+"/oai", form)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := bufio.NewReader(resp.Body).WriteTo(&b); err != nil {
		s.T.Fatal(err)
	}
	got := caddytest.Answer{Status: resp.StatusCode, Body: b.String(), Header: resp.Header}
	validOAI(s, "POST "+form.Encode(), got)
	return got
}

func validOAI(s *caddytest.Site, what string, got caddytest.Answer) {
	s.T.Helper()
	if got.Status != http.StatusOK || got.Header.Get("Content-Type") != "text/xml; charset=utf-8" {
		s.T.Fatalf("%s: %d %s %s", what, got.Status, got.Header.Get("Content-Type"), got.Body)
	}
	schema := filepath.Join(caddytest.ModuleRoot(s.T), "oai", "testdata", "schemas", "all.xsd")
	if err := testkit.ValidateXML(s.T, schema, []byte(got.Body)); err != nil {
		s.T.Fatalf("%s: not valid OAI-PMH: %v\n%s", what, err, got.Body)
	}
}

// oaiDoc is an OAI-PMH response as an XML decoder reads it.
type oaiDoc struct {
	ResponseDate string `xml:"responseDate"`
	Request      struct {
		Verb  string     `xml:"verb,attr"`
		Attrs []xml.Attr `xml:",any,attr"`
		URL   string     `xml:",chardata"`
	} `xml:"request"`
	Errors []struct {
		Code string `xml:"code,attr"`
		Text string `xml:",chardata"`
	} `xml:"error"`
	Identify struct {
		RepositoryName    string   `xml:"repositoryName"`
		BaseURL           string   `xml:"baseURL"`
		AdminEmail        []string `xml:"adminEmail"`
		EarliestDatestamp string   `xml:"earliestDatestamp"`
		DeletedRecord     string   `xml:"deletedRecord"`
		Granularity       string   `xml:"granularity"`
	} `xml:"Identify"`
	Formats []string `xml:"ListMetadataFormats>metadataFormat>metadataPrefix"`
	Sets    []struct {
		Spec string `xml:"setSpec"`
		Name string `xml:"setName"`
	} `xml:"ListSets>set"`
	Headers []oaiHeader `xml:"ListIdentifiers>header"`
	Records []oaiRecord `xml:"ListRecords>record"`
	Record  *oaiRecord  `xml:"GetRecord>record"`
	Token   *oaiToken   `xml:"ListIdentifiers>resumptionToken"`
	RToken  *oaiToken   `xml:"ListRecords>resumptionToken"`
}

type oaiHeader struct {
	Status     string   `xml:"status,attr"`
	Identifier string   `xml:"identifier"`
	Datestamp  string   `xml:"datestamp"`
	SetSpecs   []string `xml:"setSpec"`
}

type oaiRecord struct {
	Header oaiHeader `xml:"header"`
	DC     *struct {
		Title      []string `xml:"title"`
		Identifier []string `xml:"identifier"`
		Creator    []string `xml:"creator"`
		Rights     []string `xml:"rights"`
		Publisher  []string `xml:"publisher"`
	} `xml:"metadata>dc"`
	DataCite *struct {
		Identifier string `xml:"payload>resource>identifier"`
		Title      string `xml:"payload>resource>titles>title"`
		Publisher  string `xml:"payload>resource>publisher"`
		Rights     []struct {
			URI string `xml:"rightsURI,attr"`
		} `xml:"payload>resource>rightsList>rights"`
	} `xml:"metadata>oai_datacite"`
}

type oaiToken struct {
	Value            string `xml:",chardata"`
	CompleteListSize string `xml:"completeListSize,attr"`
	Cursor           string `xml:"cursor,attr"`
	ExpirationDate   string `xml:"expirationDate,attr"`
}

// decodeOAI reads an answer as an OAI-PMH document.
func decodeOAI(t *testing.T, got caddytest.Answer) *oaiDoc {
	t.Helper()
	var d oaiDoc
	if err := xml.Unmarshal([]byte(got.Body), &d); err != nil {
		t.Fatalf("%v: %s", err, got.Body)
	}
	return &d
}
