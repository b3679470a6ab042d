package ezid

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/ezid/download"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// alicesDownload is an ANVL download as EZID writes it: alice's public,
// reserved and unavailable identifiers (percent-encoding, a whole-record
// DataCite document), and one of bob's.
const alicesDownload = `:: ark:/12345/x5a1
_owner: alice
_ownergroup: lib
_created: 1300812337
_updated: 1300913550
_target: http://www.gutenberg.org/ebooks/7178
_profile: erc
_status: public
_export: yes
erc.what: Remembrance of Things Past
erc.when: 1922
erc.who: Proust, Marcel
note: 100%25 sure%0Aon two lines: yes

:: ark:/12345/x5b2
_owner: alice
_ownergroup: lib
_created: 1421276359
_updated: 1421276360
_target: https://repo.example.org/b2
_profile: datacite
_status: reserved
_export: no
datacite: <?xml version="1.0"?>%0A<resource xmlns="http://datacite.org/schema/kernel-4"><identifier identifierType="ARK">12345/x5b2</identifier><titles><title>Practical Taxidermy</title></titles></resource>

:: ark:/12345/x5c3
_owner: alice
_ownergroup: lib
_created: 1500000000
_updated: 1500000001
_target: https://repo.example.org/c3
_profile: dc
_status: unavailable | withdrawn by author
_export: yes
dc.title: A withdrawn photograph

:: ark:/12345/y7d4
_owner: bob
_ownergroup: lib
_created: 1500000000
_updated: 1500000002
_target: https://repo.example.org/d4
_profile: erc
_status: public
_export: yes
erc.who: Bob
`

// records reads an ANVL download into its records' elements, by
// identifier, in order.
func records(t *testing.T, text string) (ids []string, elems map[string]map[string]string) {
	t.Helper()
	elems = map[string]map[string]string{}
	rs := anvl.NewRecords(strings.NewReader(text))
	for rs.Next() {
		r := rs.Record()
		ids = append(ids, r.ID)
		m := map[string]string{}
		for _, e := range r.Elements {
			m[e.Name] = e.Value
		}
		elems[r.ID] = m
	}
	if rs.Err() != nil {
		t.Fatal(rs.Err())
	}
	return ids, elems
}

// requestDownload asks EZID's API for a download as user, checks the
// answer, and fetches the file from the URL it names once it is ready
// (404 until then, which the client polls as EZID's batch-download.sh
// does).
func (s *ezidSite) requestDownload(user, form string) (name string, data []byte) {
	s.T.Helper()
	resp := s.postForm(user, form)
	link, ok := strings.CutPrefix(resp.Body, "success: "+s.Base+s.path+"/download/")
	if resp.Status != http.StatusOK || !ok || resp.Header.Get("Content-Type") != "text/plain; charset=UTF-8" {
		s.T.Fatalf("download_request %s: %d %q", form, resp.Status, resp.Body)
	}
	var got caddytest.Answer
	testkit.WaitFor(s.T, "the download to be ready", func() bool {
		got = s.Get(s.path + "/download/" + link)
		return got.Status == http.StatusOK
	})
	return link, []byte(got.Body)
}

// postForm sends POST download_request with form as user ("" for no
// credentials).
func (s *ezidSite) postForm(user, form string) caddytest.Answer {
	s.T.Helper()
	req, _ := http.NewRequest("POST", s.Base+s.path+"/download_request", strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		u, p, _ := strings.Cut(user, ":")
		req.SetBasicAuth(u, p)
	}
	resp, err := caddytest.Client.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return caddytest.Answer{Status: resp.StatusCode, Body: string(body), Header: resp.Header}
}

// gunzip decompresses a gzip download.
func gunzip(t *testing.T, data []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// EZID's download, imported through the API's import and downloaded again
// through EZID's API of a real Caddy, gives the same records, on bbolt
// and on PostgreSQL: the reserved and unavailable identifiers, _owner,
// _created, _updated and _export included. A download holds the
// requestor's own identifiers unless it names owners; the XML and CSV
// formats, zip, columns and constraints answer as the API document says.
func TestEZIDDownloadRoundTrip(t *testing.T) {
	for name, storeLine := range map[string]func() string{
		"bbolt":      func() string { return boltStore(t) },
		"postgresql": func() string { return "store postgres " + testkit.SharedPostgres(t).CreateDB(t) },
	} {
		t.Run(name, func(t *testing.T) {
			s := startEZIDSite(t, storeLine(), "", "")
			if got := s.native("POST", "/import?format=anvl", alicesDownload); got.Status != http.StatusOK {
				t.Fatalf("import: %d %s", got.Status, got.Body)
			}
			_, want := records(t, alicesDownload)
			delete(want, "ark:/12345/y7d4")

			file, data := s.requestDownload(alice, "format=anvl")
			if !strings.HasSuffix(file, ".txt.gz") {
				t.Errorf("file name %q", file)
			}
			ids, got := records(t, gunzip(t, data))
			if strings.Join(ids, " ") != "ark:/12345/x5a1 ark:/12345/x5b2 ark:/12345/x5c3" {
				t.Errorf("alice's download holds %v", ids)
			}
			for id, w := range want {
				if !maps.Equal(got[id], w) {
					t.Errorf("%s:\n got %q\nwant %q", id, got[id], w)
				}
			}

			_, data = s.requestDownload(alice, "format=anvl&owner=alice&status=reserved&status=unavailable")
			if ids, _ := records(t, gunzip(t, data)); strings.Join(ids, " ") != "ark:/12345/x5b2 ark:/12345/x5c3" {
				t.Errorf("status=reserved&status=unavailable: %v", ids)
			}

			_, data = s.requestDownload(alice, "format=csv&column=_id&column=_owner&column=erc.when&column=_mappedCreator&column=note&compression=zip")
			zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
			if err != nil || len(zr.File) != 1 || !strings.HasSuffix(zr.File[0].Name, ".csv") {
				t.Fatalf("zip: %v", err)
			}
			f, _ := zr.File[0].Open()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil || len(rows) != 4 || strings.Join(rows[0], ",") != "_id,_owner,erc.when,_mappedCreator,note" ||
				strings.Join(rows[1], "|") != "ark:/12345/x5a1|alice|1922|Proust, Marcel|100% sure on two lines: yes" {
				t.Errorf("CSV: %q %v", rows, err)
			}

			_, data = s.requestDownload(alice, "format=xml&exported=no")
			var xmlIDs []string
			err = download.ReadXML(strings.NewReader(gunzip(t, data)), func(r *anvl.Record) error {
				xmlIDs = append(xmlIDs, r.ID)
				return nil
			})
			if err != nil || strings.Join(xmlIDs, " ") != "ark:/12345/x5b2" {
				t.Errorf("XML, exported=no: %v %v", xmlIDs, err)
			}

			// A reserved identifier does not resolve; an unavailable one
			// answers its tombstone.
			if got := s.Get("/ark:12345/x5b2"); got.Status != http.StatusNotFound {
				t.Errorf("reserved: %d", got.Status)
			}
			if got := s.Get("/ark:12345/x5c3"); got.Status != http.StatusGone {
				t.Errorf("unavailable: %d", got.Status)
			}
		})
	}
}

// The refusals of a download request, in EZID's words and statuses.
func TestEZIDDownloadRefusals(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "/ezid", "")
	for _, c := range []struct {
		user, form string
		status     int
		line       string
	}{
		{"", "format=anvl", 401, "error: unauthorized"},
		{alice, "type=ark", 400, "error: bad request - missing required parameter: format"},
		{alice, "format=csv", 400, "error: bad request - format 'csv' requires at least one column"},
		{alice, "format=anvl&sort=x", 400, "error: bad request - invalid parameter: sort"},
		{alice, "format=anvl&owner=nobody", 400, "error: bad request - parameter 'owner': no such user"},
		{alice, "format=anvl&owner=bob", 403, "error: forbidden"},
	} {
		got := s.postForm(c.user, c.form)
		if got.Status != c.status || got.Body != c.line {
			t.Errorf("%s %s: %d %q, want %d %q", c.user, c.form, got.Status, got.Body, c.status, c.line)
		}
	}
	if got := s.call("GET", "/download_request", ""); got.Status != http.StatusMethodNotAllowed {
		t.Errorf("GET download_request: %d %s", got.Status, got.Body)
	}
	if got := s.Get("/ezid/download/" + url.PathEscape("nothing.txt.gz")); got.Status != http.StatusNotFound {
		t.Errorf("a download never requested: %d", got.Status)
	}
}
