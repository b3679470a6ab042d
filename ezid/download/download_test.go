package download

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"go.uber.org/zap"
)

// records are what the tests download: structural characters in names
// and values, a whole-record DataCite document, the three statuses.
var records = []anvl.Record{
	{ID: "ark:/12345/x5a", Elements: []anvl.Element{
		{Name: "_created", Value: "1300812337"}, {Name: "_export", Value: "yes"}, {Name: "_owner", Value: "apitest"}, {Name: "_profile", Value: "erc"},
		{Name: "_status", Value: "public"}, {Name: "_target", Value: "http://www.gutenberg.org/ebooks/7178?a=1&b=2"}, {Name: "_updated", Value: "1300913550"},
		{Name: "erc.what", Value: "Remembrance of Things Past"}, {Name: "erc.when", Value: "1922"}, {Name: "erc.who", Value: "Proust, Marcel"},
		{Name: "note%:x", Value: "100% sure: line one\nline two\r\n<b>&\"quoted\"</b> é"},
	}},
	{ID: "ark:/12345/x5b", Elements: []anvl.Element{
		{Name: "_created", Value: "1421276359"}, {Name: "_export", Value: "no"}, {Name: "_owner", Value: "apitest"}, {Name: "_profile", Value: "datacite"},
		{Name: "_status", Value: "reserved"}, {Name: "_target", Value: "https://repo.example.org/b"}, {Name: "_updated", Value: "1421276359"},
		{Name: "datacite", Value: "<?xml version=\"1.0\"?>\n<resource xmlns=\"http://datacite.org/schema/kernel-4\"><identifier identifierType=\"ARK\">12345/x5b</identifier><titles><title xml:lang=\"en\">Practical &amp; Taxidermy</title></titles></resource>"},
	}},
	{ID: "ark:/99999/fk4c", Elements: []anvl.Element{
		{Name: "_created", Value: "1500000000"}, {Name: "_owner", Value: "other"}, {Name: "_status", Value: "unavailable | withdrawn by author"},
		{Name: "_target", Value: "https://repo.example.org/c"}, {Name: "_updated", Value: "1500000001"}, {Name: "dc.title", Value: "A test"},
	}},
}

// source gives records.
func source(ctx context.Context, fn func(*anvl.Record) error) error {
	for i := range records {
		r := records[i]
		r.Elements = append([]anvl.Element(nil), r.Elements...)
		if err := fn(&r); err != nil {
			return err
		}
	}
	return nil
}

// download writes the download form asks for, as requestor, and returns
// its file's path.
func download(t *testing.T, form url.Values, requestor string) string {
	t.Helper()
	rq, err := ParseRequest(form)
	if err != nil {
		t.Fatal(err)
	}
	rq.Select.Owners = rq.Owners
	if len(rq.Owners) == 0 {
		rq.Select.Owners = []string{requestor}
	}
	dir := t.TempDir()
	j := &job{rq: rq, src: source, name: FileName("f", rq.Format, rq.Compression)}
	if _, err := j.write(context.Background(), dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, j.name)
}

// unpack decompresses a download with gunzip or unzip.
func unpack(t *testing.T, path string) []byte {
	t.Helper()
	cmd := exec.Command("gunzip", "-c", path)
	if strings.HasSuffix(path, ".zip") {
		cmd = exec.Command("unzip", "-p", path)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return out
}

// The ANVL download is read back by the codec's reader of downloads and by
// the Python parser the API document gives clients, block by block.
func TestANVLDownloadReadsBack(t *testing.T) {
	for _, compression := range []string{"gzip", "zip"} {
		data := unpack(t, download(t, url.Values{"format": {"anvl"}, "compression": {compression}}, "apitest"))
		rs := anvl.NewRecords(strings.NewReader(string(data)))
		var got []anvl.Record
		for rs.Next() {
			r := rs.Record()
			r.Line = 0
			got = append(got, r)
		}
		if rs.Err() != nil || !reflect.DeepEqual(got, records[:2]) {
			t.Errorf("%s: read back %+v, %v; want %+v", compression, got, rs.Err(), records[:2])
		}
		py := exec.Command("python3", "-c", `
import re, sys, json
def unescape(s): return re.sub("%([0-9A-Fa-f][0-9A-Fa-f])", lambda m: chr(int(m.group(1), 16)), s)
out = []
for block in sys.stdin.read().split("\n\n"):
    lines = block.strip("\n").split("\n")
    out.append([lines[0][3:], [[unescape(v).strip() for v in l.split(":", 1)] for l in lines[1:]]])
print(json.dumps(out))`)
		py.Stdin = strings.NewReader(string(data))
		out, err := py.Output()
		if err != nil {
			t.Fatal(err)
		}
		var blocks [][]any
		if err := json.Unmarshal(out, &blocks); err != nil || len(blocks) != 2 || blocks[1][0] != "ark:/12345/x5b" {
			t.Errorf("python: %s %v", out, err)
		}
	}
}

// The XML download is well-formed (xmllint), embeds the DataCite document
// as XML without its declaration, and ReadXML gives the records back.
func TestXMLDownloadReadsBack(t *testing.T) {
	path := download(t, url.Values{"format": {"xml"}}, "apitest")
	data := unpack(t, path)
	plain := filepath.Join(t.TempDir(), "d.xml")
	os.WriteFile(plain, data, 0o644)
	if out, err := exec.Command("xmllint", "--noout", plain).CombinedOutput(); err != nil {
		t.Fatalf("xmllint: %v\n%s", err, out)
	}
	out, err := exec.Command("xmllint", "--xpath", "string(//*[local-name()='title'])", plain).Output()
	if err != nil || strings.TrimSpace(string(out)) != "Practical & Taxidermy" {
		t.Errorf("the DataCite title as XML: %q %v", out, err)
	}
	var got []anvl.Record
	if err := ReadXML(strings.NewReader(string(data)), func(r *anvl.Record) error {
		r.Line = 0
		got = append(got, *r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []anvl.Record{records[0], records[1]}
	want[1].Elements = append([]anvl.Element(nil), want[1].Elements...)
	datacite := &want[1].Elements[len(want[1].Elements)-1]
	datacite.Value = strings.TrimPrefix(datacite.Value, "<?xml version=\"1.0\"?>\n")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back:\n%+v\nwant:\n%+v", got, want)
	}
}

// The CSV download has the columns asked for, in their order, one line a
// record as Python's csv module reads it, values on one line.
func TestCSVDownloadColumns(t *testing.T) {
	data := unpack(t, download(t, url.Values{"format": {"csv"}, "column": {"_id", "_owner", "erc.when", "_mappedCreator", "note%:x", "_mappedTitle"},
		"owner": {"apitest", "other"}}, "apitest"))
	py := exec.Command("python3", "-c", "import csv, sys, json; print(json.dumps(list(csv.reader(sys.stdin))))")
	py.Stdin = strings.NewReader(string(data))
	out, err := py.Output()
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	json.Unmarshal(out, &rows)
	want := [][]string{
		{"_id", "_owner", "erc.when", "_mappedCreator", "note%:x", "_mappedTitle"},
		{"ark:/12345/x5a", "apitest", "1922", "Proust, Marcel", "100% sure: line one line two  <b>&\"quoted\"</b> é", "Remembrance of Things Past"},
		{"ark:/12345/x5b", "apitest", "", "", "", ""},
		{"ark:/99999/fk4c", "other", "", "", "", "A test"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows:\n%q\nwant:\n%q", rows, want)
	}
}

// Each constraint selects as the API document says; repeated ones are
// ORed, different ones ANDed; convertTimestamps writes ISO 8601.
func TestConstraintsSelect(t *testing.T) {
	ids := func(form url.Values) []string {
		form.Set("format", "csv")
		form["column"] = []string{"_id", "_created"}
		data := unpack(t, download(t, form, "apitest"))
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\r\n")[1:] {
			got = append(got, l)
		}
		return got
	}
	all := url.Values{"owner": {"apitest", "other"}}
	for _, c := range []struct {
		form url.Values
		want []string
	}{
		{url.Values{}, []string{"ark:/12345/x5a,1300812337", "ark:/12345/x5b,1421276359"}},
		{url.Values{"owner": {"other"}}, []string{"ark:/99999/fk4c,1500000000"}},
		{url.Values{"status": {"reserved", "unavailable"}, "owner": all["owner"]}, []string{"ark:/12345/x5b,1421276359", "ark:/99999/fk4c,1500000000"}},
		{url.Values{"exported": {"no"}, "owner": all["owner"]}, []string{"ark:/12345/x5b,1421276359"}},
		{url.Values{"permanence": {"test"}, "owner": all["owner"]}, []string{"ark:/99999/fk4c,1500000000"}},
		{url.Values{"profile": {"datacite"}, "owner": all["owner"]}, []string{"ark:/12345/x5b,1421276359"}},
		{url.Values{"createdAfter": {"1421276359"}, "createdBefore": {"2017-07-14T02:40:00Z"}, "owner": all["owner"]}, []string{"ark:/12345/x5b,1421276359"}},
		{url.Values{"updatedAfter": {"2017-07-14T02:40:01Z"}, "owner": all["owner"]}, []string{"ark:/99999/fk4c,1500000000"}},
		{url.Values{"type": {"doi"}, "owner": all["owner"]}, nil},
		{url.Values{"datacite": {"yes"}, "owner": all["owner"]}, nil},
		{url.Values{"convertTimestamps": {"yes"}, "status": {"public"}}, []string{"ark:/12345/x5a,2011-03-22T16:45:37Z"}},
	} {
		if got := ids(c.form); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %q, want %q", c.form, got, c.want)
		}
	}
}

// A bad request is refused with EZID's words.
func TestParseRequestRefusals(t *testing.T) {
	for _, c := range []struct {
		form, want string
	}{
		{"type=ark", "bad request - missing required parameter: format"},
		{"format=pdf", "bad request - parameter 'format': invalid parameter value"},
		{"format=csv", "bad request - format 'csv' requires at least one column"},
		{"format=xml&column=_id", "bad request - parameter is incompatible with format: column"},
		{"format=xml&format=csv", "bad request - parameter is not repeatable: format"},
		{"format=xml&sort=id", "bad request - invalid parameter: sort"},
		{"format=xml&createdAfter=yesterday", "bad request - parameter 'createdAfter': invalid timestamp"},
		{"format=xml&owner=+", "bad request - parameter 'owner': empty value"},
		{"format=xml&status=deleted", "bad request - parameter 'status': invalid parameter value"},
	} {
		form, _ := url.ParseQuery(c.form)
		if _, err := ParseRequest(form); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.form, err, c.want)
		}
	}
}

// accounts: apitest may download other's identifiers, other may not
// download apitest's.
type accounts struct{}

func (accounts) Known(name string, group bool) bool {
	return !group && (name == "apitest" || name == "other")
}
func (accounts) MayDownload(requestor, name string, group bool) bool {
	return requestor == name || requestor == "apitest"
}

// A request is answered at once with the URL of its file; the URL answers
// 404 until the download is complete, then the download; a request for
// someone else's identifiers is forbidden.
func TestServiceAnswersWhenReady(t *testing.T) {
	release := make(chan struct{})
	svc := &Service{Dir: t.TempDir(), Logger: zap.NewNop()}
	blocked := func(ctx context.Context, fn func(*anvl.Record) error) error {
		<-release
		return source(ctx, fn)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/download_request", func(w http.ResponseWriter, r *http.Request) {
		user, _, _ := r.BasicAuth()
		svc.ServeRequest(w, r, user, accounts{}, func(_ url.Values, rq *Request) (string, error) {
			name := FileName("bA3kQ9zT0pLm2XyW", rq.Format, rq.Compression)
			_, err := svc.Produce(name, rq, blocked)
			return "http://" + r.Host + "/download/" + name, err
		})
	})
	mux.HandleFunc("/download/{name}", func(w http.ResponseWriter, r *http.Request) { svc.ServeFile(w, r, r.PathValue("name")) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	post := func(user, body string) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL+"/download_request", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(user, "x")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post("other", "format=anvl&owner=apitest"); code != 403 || body != "error: forbidden" {
		t.Errorf("someone else's: %d %q", code, body)
	}
	if code, body := post("other", "format=anvl&owner=nobody"); code != 400 || body != "error: bad request - parameter 'owner': no such user" {
		t.Errorf("no such user: %d %q", code, body)
	}
	code, body := post("apitest", "format=xml&compression=zip")
	link, ok := strings.CutPrefix(body, "success: "+srv.URL+"/download/")
	if code != 200 || !ok || link != "bA3kQ9zT0pLm2XyW.zip" {
		t.Fatalf("request: %d %q", code, body)
	}
	get := func() *http.Response {
		resp, err := http.Get(srv.URL + "/download/" + link)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := get(); resp.StatusCode != 404 {
		t.Errorf("before it is ready: %d", resp.StatusCode)
	}
	close(release)
	var resp *http.Response
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp = get(); resp.StatusCode == 200 {
			break
		}
		resp.Body.Close()
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/zip" {
		t.Fatalf("when ready: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	zipped := filepath.Join(t.TempDir(), link)
	data, _ := io.ReadAll(resp.Body)
	os.WriteFile(zipped, data, 0o644)
	if xml := unpack(t, zipped); !strings.Contains(string(xml), `<record identifier="ark:/12345/x5b">`) {
		t.Errorf("the download: %s", xml)
	}
}

// A download asked again under its name while it is being written is not
// written twice; once complete, it is ready, and is not written again.
func TestProduceWritesOnce(t *testing.T) {
	svc := &Service{Dir: t.TempDir(), Logger: zap.NewNop()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var mu sync.Mutex
	reads := 0
	counted := func(ctx context.Context, fn func(*anvl.Record) error) error {
		mu.Lock()
		reads++
		mu.Unlock()
		<-release
		return source(ctx, fn)
	}
	rq, err := ParseRequest(url.Values{"format": {"anvl"}})
	if err != nil {
		t.Fatal(err)
	}
	name := FileName("bA3kQ9zT0pLm2XyW", rq.Format, rq.Compression)
	for range 3 {
		if ready, err := svc.Produce(name, rq, counted); ready || err != nil {
			t.Fatalf("while written: %v %v", ready, err)
		}
	}
	close(release)
	deadline := time.Now().Add(10 * time.Second)
	for {
		ready, err := svc.Produce(name, rq, counted)
		if err != nil {
			t.Fatal(err)
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if reads != 1 {
		t.Errorf("the store was read %d times for one download", reads)
	}
}
