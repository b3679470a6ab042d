package oai

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// startOAISite starts an API site with the OAI-PMH provider and a few
// records: ark:12345/x5a with metadata, ark:12345/x5b withdrawn,
// urn:isbn:978-3-16-148410-0, a minted name, and the table's
// ark:12345/t1; it waits until they are in a complete second.
func startOAISite(t *testing.T) *caddytest.APISite {
	t.Helper()
	testkit.NeedTool(t, "xmllint", "libxml2-utils")
	s := caddytest.StartAPISite(t, oaiBlock+"\n\t\tminter ark:12345/m7 .sdddd")
	for _, c := range []struct{ id, body string }{
		{"ark:12345/x5a", `{"target": "https://repo.example.org/a", "meta": {"what": "Radium & polonium", "who": "Curie, Marie", "when": "1898"}}`},
		{"ark:12345/x5b", `{"target": "https://repo.example.org/b"}`},
		{"urn:isbn:978-3-16-148410-0", `{"target": "https://repo.example.org/isbn"}`},
	} {
		if got := s.Call("PUT", "/id/"+c.id, "editor", c.body); got.Status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %s", c.id, got.Status, got.Body)
		}
	}
	if got := s.Call("POST", "/withdraw/ark:12345/x5b", "editor", `{"reason": "Duplicate"}`); got.Status != http.StatusOK {
		t.Fatalf("withdraw: %d %s", got.Status, got.Body)
	}
	if got := s.Call("POST", "/mint/ark:12345/m7", "editor", ""); got.Status != http.StatusCreated {
		t.Fatalf("mint: %d %s", got.Status, got.Body)
	}
	testkit.NextSecond()
	return s
}

// TestOAIVerbs asks each verb what it must answer, GET and POST alike.
func TestOAIVerbs(t *testing.T) {
	s := startOAISite(t)

	d := decodeOAI(t, oaiGet(s.Site, "verb=Identify"))
	id := d.Identify
	if id.RepositoryName != "Example ARKs" || id.BaseURL != s.Base+"/oai" || !slices.Equal(id.AdminEmail, []string{"admin@example.org"}) ||
		id.DeletedRecord != "persistent" || id.Granularity != "YYYY-MM-DDThh:mm:ssZ" {
		t.Errorf("Identify: %+v", id)
	}
	// The earliest datestamp is the earliest record's: here the table
	// file's, written before the store's records.
	fi, err := os.Stat(s.Table)
	if err != nil {
		t.Fatal(err)
	}
	if want := fi.ModTime().UTC().Format("2006-01-02T15:04:05Z"); id.EarliestDatestamp != want {
		t.Errorf("earliestDatestamp %s, want the table's %s", id.EarliestDatestamp, want)
	}

	for _, q := range []string{"verb=ListMetadataFormats", "verb=ListMetadataFormats&identifier=ark:12345/x5a", "verb=ListMetadataFormats&identifier=ark:12345/x5b"} {
		if d := decodeOAI(t, oaiGet(s.Site, q)); !slices.Equal(d.Formats, []string{"oai_dc", "oai_datacite"}) {
			t.Errorf("%s: %v", q, d.Formats)
		}
	}

	d = decodeOAI(t, oaiGet(s.Site, "verb=ListSets"))
	var sets []string
	for _, set := range d.Sets {
		sets = append(sets, set.Spec+"="+set.Name)
	}
	slices.Sort(sets)
	if want := []string{"ark:12345:t1=ark:12345/t1", "ark:12345:x5=ark:12345/x5", "ark:12345=ark:12345", "ark=ark", "urn:isbn=urn:isbn", "urn=urn"}; !slices.Equal(sets, want) {
		t.Errorf("ListSets: %v, want %v", sets, want)
	}

	// GetRecord in both formats, by GET and by POST, with the identifier
	// spelled otherwise.
	d = decodeOAI(t, oaiGet(s.Site, "verb=GetRecord&metadataPrefix=oai_dc&identifier=ark:/12345/x5a"))
	if r := d.Record; r == nil || r.Header.Identifier != "ark:12345/x5a" || r.DC == nil || !slices.Equal(r.DC.Title, []string{"Radium & polonium"}) ||
		!slices.Equal(r.DC.Creator, []string{"Curie, Marie"}) || !slices.Contains(r.DC.Identifier, "ark:12345/x5a") ||
		!slices.Equal(r.Header.SetSpecs, []string{"ark", "ark:12345", "ark:12345:x5"}) {
		t.Errorf("GetRecord oai_dc: %+v", d.Record)
	}
	d = decodeOAI(t, oaiPost(s.Site, url.Values{"verb": {"GetRecord"}, "metadataPrefix": {"oai_datacite"}, "identifier": {"ark:12345/x5a"}}))
	if r := d.Record; r == nil || r.DataCite == nil || r.DataCite.Identifier != "12345/x5a" || r.DataCite.Title != "Radium & polonium" {
		t.Errorf("GetRecord oai_datacite by POST: %+v", d.Record)
	}
	// A withdrawn identifier is a deleted record: a header, no metadata.
	d = decodeOAI(t, oaiGet(s.Site, "verb=GetRecord&metadataPrefix=oai_dc&identifier=ark:12345/x5b"))
	if r := d.Record; r == nil || r.Header.Status != "deleted" || r.DC != nil {
		t.Errorf("GetRecord of a withdrawn identifier: %+v", d.Record)
	}

	// Lists a page at a time: a cursor on every page, the empty token
	// on the last; no completeListSize, which a list of the store would
	// have to count.
	var ids []string
	q := "verb=ListRecords&metadataPrefix=oai_datacite"
	for pages := 0; ; pages++ {
		d = decodeOAI(t, oaiGet(s.Site, q))
		for _, r := range d.Records {
			ids = append(ids, r.Header.Identifier)
		}
		if d.RToken == nil || d.RToken.Cursor != strconv.Itoa(len(ids)-len(d.Records)) || d.RToken.CompleteListSize != "" {
			t.Fatalf("page %d: token %+v", pages, d.RToken)
		}
		if d.RToken.Value == "" {
			break
		}
		q = "verb=ListRecords&resumptionToken=" + url.QueryEscape(d.RToken.Value)
	}
	if want := []string{"ark:12345/x5a", "urn:isbn:978-3-16-148410-0", "ark:12345/x5b", "ark:12345/t1"}; !slices.Equal(ids, want) {
		t.Errorf("ListRecords: %v, want %v (commit order, then the table)", ids, want)
	}
	// Selective: a set, a window.
	d = decodeOAI(t, oaiGet(s.Site, "verb=ListIdentifiers&metadataPrefix=oai_dc&set=urn"))
	if len(d.Headers) != 1 || d.Headers[0].Identifier != "urn:isbn:978-3-16-148410-0" || d.Token != nil {
		t.Errorf("set urn: %+v %+v", d.Headers, d.Token)
	}
	today := time.Now().UTC().Format("2006-01-02")
	d = decodeOAI(t, oaiGet(s.Site, "verb=ListIdentifiers&metadataPrefix=oai_dc&from="+today+"&until="+today+"&set=ark:12345:x5"))
	if len(d.Headers) != 2 {
		t.Errorf("from and until today, set x5: %+v", d.Headers)
	}
}

// TestOAIErrors asks every verb with bad arguments: each gets the error
// code the protocol names, in a valid response, and no attributes on the
// request element for badVerb and badArgument.
func TestOAIErrors(t *testing.T) {
	s := startOAISite(t)
	future := time.Now().UTC().Add(48 * time.Hour).Format("2006-01-02")
	cases := []struct{ query, code string }{
		{"", "badVerb"},
		{"verb=Frobnicate", "badVerb"},
		{"verb=Identify&verb=Identify", "badVerb"},
		{"verb=Identify&identifier=ark:12345/x5a", "badArgument"},
		{"verb=ListMetadataFormats&identifier=ark:12345/nothing", "idDoesNotExist"},
		{"verb=ListMetadataFormats&identifier=ark:12345/m70000", "idDoesNotExist"},
		{"verb=ListMetadataFormats&identifier=a&identifier=b", "badArgument"},
		{"verb=ListMetadataFormats&metadataPrefix=oai_dc", "badArgument"},
		{"verb=ListSets&resumptionToken=abc", "badResumptionToken"},
		{"verb=ListSets&set=ark", "badArgument"},
		{"verb=GetRecord&identifier=ark:12345/x5a", "badArgument"},
		{"verb=GetRecord&metadataPrefix=oai_dc", "badArgument"},
		{"verb=GetRecord&identifier=ark:12345/x5a&metadataPrefix=marc21", "cannotDisseminateFormat"},
		{"verb=GetRecord&identifier=ark:12345/nothing&metadataPrefix=oai_dc", "idDoesNotExist"},
		{"verb=GetRecord&identifier=not-an-id&metadataPrefix=oai_dc", "idDoesNotExist"},
		{"verb=GetRecord&identifier=ark:12345/x5a&metadataPrefix=oai_dc&set=ark", "badArgument"},
		{"verb=ListIdentifiers", "badArgument"},
		{"verb=ListRecords", "badArgument"},
		{"verb=ListRecords&metadataPrefix=marc21", "cannotDisseminateFormat"},
		{"verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=oai_dc", "badArgument"},
		{"verb=ListRecords&metadataPrefix=oai_dc&from=yesterday", "badArgument"},
		{"verb=ListRecords&metadataPrefix=oai_dc&until=2026-02-30", "badArgument"},
		{"verb=ListRecords&metadataPrefix=oai_dc&from=2026-01-01T00:00:00", "badArgument"},
		{"verb=ListRecords&metadataPrefix=oai_dc&from=2026-01-01&until=2026-06-01T00:00:00Z", "badArgument"},
		{"verb=ListRecords&metadataPrefix=oai_dc&from=2026-06-01&until=2026-01-01", "badArgument"},
		{"verb=ListRecords&metadataPrefix=oai_dc&from=" + future, "noRecordsMatch"},
		{"verb=ListRecords&metadataPrefix=oai_dc&until=2000-01-01", "noRecordsMatch"},
		{"verb=ListIdentifiers&metadataPrefix=oai_dc&set=ark:99999", "noRecordsMatch"},
		{"verb=ListIdentifiers&metadataPrefix=oai_dc&set=ark:12345/x5", "badArgument"},
		{"verb=ListIdentifiers&metadataPrefix=oai_dc&set=ark:12345:a5", "badArgument"},
		{"verb=ListIdentifiers&metadataPrefix=oai_dc&frm=2026-01-01", "badArgument"},
		{"verb=ListIdentifiers&resumptionToken=xyz", "badResumptionToken"},
		{"verb=ListIdentifiers&resumptionToken=xyz&metadataPrefix=oai_dc", "badArgument"},
		{"verb=ListRecords&resumptionToken=" + listToken(t, s), "badResumptionToken"}, // a ListIdentifiers token
	}
	for _, c := range cases {
		for _, post := range []bool{false, true} {
			var got caddytest.Answer
			if post {
				form, _ := url.ParseQuery(c.query)
				got = oaiPost(s.Site, form)
			} else {
				got = oaiGet(s.Site, c.query)
			}
			d := decodeOAI(t, got)
			if len(d.Errors) != 1 || d.Errors[0].Code != c.code || strings.TrimSpace(d.Errors[0].Text) == "" || strings.Contains(d.Errors[0].Text, "\n") {
				t.Errorf("%s (POST %v): %+v, want one %s with a one-line reason", c.query, post, d.Errors, c.code)
				continue
			}
			if bare := c.code == "badVerb" || c.code == "badArgument"; bare != (d.Request.Verb == "" && len(d.Request.Attrs) == 0) {
				t.Errorf("%s: request element %+v: attributes only when the request was good", c.query, d.Request)
			}
		}
	}

	// Not OAI-PMH: other methods, other bodies.
	if got := s.Do(http.MethodPut, "/oai?verb=Identify", nil); got.Status != http.StatusMethodNotAllowed || got.Header.Get("Allow") != "GET, HEAD, POST" {
		t.Errorf("PUT: %d Allow %q", got.Status, got.Header.Get("Allow"))
	}
	resp, err := caddytest.Client.Post(s.Base+"/oai", "application/json", strings.NewReader(`{"verb": "Identify"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("POST of JSON: %d", resp.StatusCode)
	}
}

// listToken returns the resumption token of a ListIdentifiers' first
// page.
func listToken(t *testing.T, s *caddytest.APISite) string {
	t.Helper()
	d := decodeOAI(t, oaiGet(s.Site, "verb=ListIdentifiers&metadataPrefix=oai_dc"))
	if d.Token == nil || d.Token.Value == "" {
		t.Fatalf("no token: %+v", d)
	}
	return url.QueryEscape(d.Token.Value)
}

// TestOAIConfigRefused checks that a provider without admin_email, or with
// a bad one, is refused when the Caddyfile is adapted, saying why.
func TestOAIConfigRefused(t *testing.T) {
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	for block, want := range map[string]string{
		"oai /oai": "admin_email is required",
		"oai /oai {\n\t\t\tadmin_email nobody\n\t\t}": `admin_email "nobody" is not an e-mail address`,
		"oai": "a path is required",
		"oai oai {\n\t\t\tadmin_email a@example.org\n\t\t}":                               "must start with /",
		"oai /oai {\n\t\t\tadmin_email a@example.org\n\t\t\tpage_size 0x\n\t\t}":          "page_size",
		"oai /oai {\n\t\t\tadmin_email a@example.org\n\t\t\tcolour blue\n\t\t}":           `unknown subdirective "colour"`,
		"oai /oai {\n\t\t\tadmin_email a@example.org\n\t\t\ttoken_secret short\n\t\t}":    "token_secret must be at least 16 bytes",
		"oai /oai {\n\t\t\tadmin_email a@example.org\n\t\t\tconcurrent_lists 5000\n\t\t}": "concurrent_lists 5000 must be between 1 and 1000",
	} {
		caddyfile := caddytest.GlobalOptions + "\nhttp://127.0.0.1:1 {\n\tark {\n\t\ttable " + tablePath + "\n\t\t" + block + "\n\t}\n}\n"
		_, err := caddytest.AdaptCaddyfile(caddyfile, filepath.Join(t.TempDir(), "Caddyfile"))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Caddyfile:") {
			t.Errorf("%q: %v, want an error at its line saying %q", block, err, want)
		}
	}
}

// TestOAICompiledTable harvests a compiled table a page at a time: every
// entry once, its withdrawn one deleted, the token resuming at a
// position in the mapped file.
func TestOAICompiledTable(t *testing.T) {
	testkit.NeedTool(t, "xmllint", "libxml2-utils")
	var entries []table.Entry
	for i := range 8 {
		entries = append(entries, table.Entry{ID: "ark:12345/c" + strconv.Itoa(i) + "x", Target: "https://repo.example.org/" + strconv.Itoa(i)})
	}
	entries = append(entries, table.Entry{ID: "ark:12345/c9gone", Status: 410})
	compiled := filepath.Join(t.TempDir(), "ids.arkt")
	if _, err := table.Compile([]string{testkit.WriteTable(t, entries)}, compiled); err != nil {
		t.Fatal(err)
	}
	s := caddytest.StartSite(t, "ark {\n\t\tnaan 12345\n\t\ttable "+compiled+"\n\t\t"+oaiBlock+"\n\t}")
	testkit.NextSecond()
	seen := map[string]string{}
	q := "verb=ListIdentifiers&metadataPrefix=oai_dc&set=ark:12345"
	for pages := 1; ; pages++ {
		d := decodeOAI(t, oaiGet(s, q))
		for _, h := range d.Headers {
			if _, dup := seen[h.Identifier]; dup {
				t.Errorf("%s twice", h.Identifier)
			}
			seen[h.Identifier] = h.Status
		}
		if d.Token == nil || d.Token.Value == "" {
			if pages != 3 || d.Token == nil || d.Token.CompleteListSize != "" {
				t.Errorf("%d pages, last token %+v; want 3 pages of 3 and no completeListSize (a set's would be counted)", pages, d.Token)
			}
			break
		}
		q = "verb=ListIdentifiers&resumptionToken=" + url.QueryEscape(d.Token.Value)
	}
	if len(seen) != 9 || seen["ark:12345/c9gone"] != "deleted" || seen["ark:12345/c0x"] != "" {
		t.Errorf("harvested %v", seen)
	}
	// The whole table of a site without a store: its size is the
	// table's length, known without counting.
	d := decodeOAI(t, oaiGet(s, "verb=ListIdentifiers&metadataPrefix=oai_dc"))
	if d.Token == nil || d.Token.CompleteListSize != "9" || d.Token.Cursor != "0" {
		t.Errorf("the whole table's first page: token %+v, want completeListSize 9", d.Token)
	}
}
