package answer_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/answer"
	"github.com/caddy-ark/caddy-ark/info"
	"github.com/caddy-ark/caddy-ark/internal/logsum"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// The answers below are worked out and written by an Answerer alone: a
// resolver over entries, an httptest request with the replacer Caddy's
// server gives each request, a recorder, and a next handler that stands
// for file_server. No Caddy runs; e2e/serve and e2e/metadata answer the
// same through a real one.

// entries are the identifiers the tests resolve.
var entries = []table.Entry{
	{ID: "ark:12345/x5wf6789", Target: "https://repo.example.org/x5wf6789"},
	{ID: "ark:12345/x5inplace", Target: "/objects/inplace.html"},
	{ID: "ark:12345/x5missing", Target: "/objects/missing.html"},
	{ID: "ark:12345/x5gone", Status: http.StatusGone},
	{ID: "ark:12345/x5dir", Target: "/objects/dir/"},
	{ID: "ark:12345/x5moved", Target: "/objects/moved.html"},
	{ID: "ark:12345/x5meta", Target: "https://repo.example.org/meta", Meta: map[string]string{
		"who": "Curie, Marie", "what": "Field notes", "when": "1903", "type": "Dataset", "license": "CC-BY-4.0"}},
}

// site is an Answerer and the resolver it answers with.
type site struct {
	an *answer.Answerer
	rs *resolve.Resolver
}

// newSite provisions an Answerer from c over entries; c's logger, pages
// and links get defaults.
func newSite(t *testing.T, c answer.Config) *site {
	t.Helper()
	tbl, err := table.Load(nil, entries)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, MaxLength: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	if c.InfoPage == nil {
		if c.InfoPage, err = info.LoadPage(""); err != nil {
			t.Fatal(err)
		}
	}
	if c.Base.Base == "" {
		c.Base, _ = answer.ParseBaseURL("https://ark.example.org")
	}
	an := new(answer.Answerer)
	if err := an.Provision(c); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(an.Close)
	return &site{an: an, rs: rs}
}

// fileServer stands for file_server after the ark handler: it serves
// /objects/inplace.html and the index of /objects/dir/, answers
// /objects/moved.html with a permanent redirect, and every other path 404,
// as file_server does, with a Caddy error. served is the last path it
// was asked for.
type fileServer struct{ served string }

func (f *fileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	f.served = r.URL.Path
	switch r.URL.Path {
	case "/objects/inplace.html", "/objects/dir/":
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<p>in place</p>"))
		return nil
	case "/objects/moved.html":
		w.Header().Set("Location", "/objects/elsewhere.html")
		w.WriteHeader(http.StatusMovedPermanently)
		return nil
	}
	return caddyhttp.Error(http.StatusNotFound, errors.New("no such file"))
}

// get asks s for target with the header lines given as name, value pairs,
// and returns the answer, the replacer of the request, and Serve's error.
func (s *site) get(t *testing.T, method, target string, next caddyhttp.Handler, header ...string) (*httptest.ResponseRecorder, *caddy.Replacer, error) {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	repl := caddy.NewReplacer()
	r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
	w := httptest.NewRecorder()
	if next == nil {
		next = new(fileServer)
	}
	err := s.an.Serve(w, r, s.rs, next)
	return w, repl, err
}

// must is get for answers that Serve writes itself.
func (s *site) must(t *testing.T, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	w, _, err := s.get(t, http.MethodGet, target, nil, header...)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return w
}

func TestRedirectForEverySpellingWithItsLinks(t *testing.T) {
	s := newSite(t, answer.Config{})
	for _, spelling := range []string{"/ark:12345/x5wf6789", "/ark:/12345/x5wf6789", "/ARK:12345/x5-wf-6789"} {
		w := s.must(t, spelling)
		if w.Code != http.StatusFound || w.Header().Get("Location") != "https://repo.example.org/x5wf6789" {
			t.Errorf("%s: %d, Location %q", spelling, w.Code, w.Header().Get("Location"))
		}
		link := strings.Join(w.Header().Values("Link"), ", ")
		for _, want := range []string{`<https://ark.example.org/ark:12345/x5wf6789>; rel="cite-as"`,
			`<https://ark.example.org/ark:12345/x5wf6789?info>; rel="describedby"`} {
			if !strings.Contains(link, want) {
				t.Errorf("%s: Link %q lacks %s", spelling, link, want)
			}
		}
		if w.Header().Get("Vary") != "Accept" {
			t.Errorf("%s: Vary %q", spelling, w.Header().Get("Vary"))
		}
	}
}

func TestPlaceholdersSayTheAnswer(t *testing.T) {
	s := newSite(t, answer.Config{})
	_, repl, err := s.get(t, http.MethodGet, "/ark:/12345/x5wf6789", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"id": "ark:12345/x5wf6789", "outcome": "redirect", "naan": "12345",
		"target": "https://repo.example.org/x5wf6789", "shoulder": "x5", "blade": "wf6789"} {
		if got, _ := repl.GetString("http.ark." + name); got != want {
			t.Errorf("{http.ark.%s} = %q, want %q", name, got, want)
		}
	}
}

func TestInPlaceIsServedByNextRewritten(t *testing.T) {
	s := newSite(t, answer.Config{})
	next := new(fileServer)
	w, repl, err := s.get(t, http.MethodGet, "/ark:12345/x5inplace", next)
	if err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusOK || w.Body.String() != "<p>in place</p>" || next.served != "/objects/inplace.html" {
		t.Errorf("%d %q, next served %q", w.Code, w.Body, next.served)
	}
	if !strings.Contains(strings.Join(w.Header().Values("Link"), ", "), `rel="cite-as"`) {
		t.Errorf("no cite-as: %q", w.Header().Values("Link"))
	}
	if out, _ := repl.GetString("http.ark.outcome"); out != "in_place" {
		t.Errorf("outcome %q", out)
	}
}

func TestInPlaceDirectoryGetsItsSlashAndNoRedirectIsPermanent(t *testing.T) {
	s := newSite(t, answer.Config{})
	w := s.must(t, "/ark:/12345/x5dir?v=2")
	if w.Code != http.StatusFound || w.Header().Get("Location") != "https://ark.example.org/ark:12345/x5dir/?v=2" {
		t.Errorf("a directory without its slash: %d, Location %q", w.Code, w.Header().Get("Location"))
	}
	if w := s.must(t, "/ark:12345/x5dir/"); w.Code != http.StatusOK || w.Body.String() != "<p>in place</p>" {
		t.Errorf("a directory with its slash: %d %q", w.Code, w.Body)
	}
	if w := s.must(t, "/ark:12345/x5moved"); w.Code != http.StatusFound || w.Header().Get("Location") != "/objects/elsewhere.html" {
		t.Errorf("next's permanent redirect: %d, Location %q", w.Code, w.Header().Get("Location"))
	}
}

func TestQueriesGoToTheTarget(t *testing.T) {
	s := newSite(t, answer.Config{})
	if w := s.must(t, "/ark:12345/x5wf6789?page=2&x=%20y"); w.Header().Get("Location") != "https://repo.example.org/x5wf6789?page=2&x=%20y" {
		t.Errorf("Location %q", w.Header().Get("Location"))
	}
}

func TestInPlaceTargetMissingIsRefusedWithItsReason(t *testing.T) {
	s := newSite(t, answer.Config{Logs: logsum.New(zap.NewNop(), time.Minute)})
	w, repl, err := s.get(t, http.MethodGet, "/ark:12345/x5missing", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "assigned here, but what it resolves to is missing") {
		t.Errorf("%d %q", w.Code, w.Body)
	}
	if out, _ := repl.GetString("http.ark.outcome"); out != "missing_target" {
		t.Errorf("outcome %q, want missing_target", out)
	}
}

func TestTombstoneIsGoneAndStillLinks(t *testing.T) {
	s := newSite(t, answer.Config{})
	w := s.must(t, "/ark:12345/x5gone")
	if w.Code != http.StatusGone || !strings.HasPrefix(w.Body.String(), "410 Gone: ") || strings.Count(w.Body.String(), "\n") != 1 {
		t.Errorf("%d %q", w.Code, w.Body)
	}
	if !strings.Contains(strings.Join(w.Header().Values("Link"), ", "), "?info>; rel=\"describedby\"") {
		t.Errorf("a tombstone without its links: %q", w.Header().Values("Link"))
	}
	html := s.must(t, "/ark:12345/x5gone", "Accept", "text/html")
	if html.Code != http.StatusGone || !strings.Contains(html.Header().Get("Content-Type"), "text/html") ||
		!strings.Contains(html.Body.String(), "https://ark.example.org/ark:12345/x5gone?info") {
		t.Errorf("the tombstone page: %d %q %q", html.Code, html.Header().Get("Content-Type"), html.Body)
	}
}

func TestRefusalsSayWhyInOneLine(t *testing.T) {
	s := newSite(t, answer.Config{})
	for _, c := range []struct {
		method, target string
		status         int
		allow          string
	}{
		{http.MethodGet, "/ark:12345/x5nothere", http.StatusNotFound, ""},
		{http.MethodGet, "/ark:99999/x", http.StatusBadRequest, ""},
		{http.MethodPost, "/ark:12345/x5wf6789", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodGet, "/ark:12345/" + strings.Repeat("x", 1100), http.StatusRequestURITooLong, ""},
	} {
		w, _, err := s.get(t, c.method, c.target, nil)
		if err != nil {
			t.Fatal(err)
		}
		body := w.Body.String()
		if w.Code != c.status || w.Header().Get("Allow") != c.allow || !strings.HasSuffix(body, "\n") || strings.Count(body, "\n") != 1 ||
			w.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("%s %.40s: %d Allow %q %q", c.method, c.target, w.Code, w.Header().Get("Allow"), body)
		}
	}
}

func TestInfoInEveryFormat(t *testing.T) {
	s := newSite(t, answer.Config{})
	anvl := s.must(t, "/ark:12345/x5meta?info")
	if anvl.Code != http.StatusOK || !strings.HasPrefix(anvl.Header().Get("Content-Type"), "text/plain") ||
		!strings.Contains(anvl.Body.String(), "https://repo.example.org/meta") {
		t.Errorf("ANVL: %d %q %q", anvl.Code, anvl.Header().Get("Content-Type"), anvl.Body)
	}
	if anvl.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Error("?info is not readable from any origin")
	}
	js := s.must(t, "/ark:12345/x5meta??", "Accept", "application/json")
	var rec map[string]any
	if err := json.Unmarshal(js.Body.Bytes(), &rec); err != nil || js.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("JSON: %v %q", err, js.Body)
	}
	if rec["url"] != "https://ark.example.org/ark:12345/x5meta" {
		t.Errorf("JSON url %v", rec["url"])
	}
	page := s.must(t, "/ark:12345/x5meta?", "Accept", "text/html")
	if !strings.HasPrefix(page.Header().Get("Content-Type"), "text/html") || !strings.Contains(page.Body.String(), "Field notes") {
		t.Errorf("HTML: %q %.200q", page.Header().Get("Content-Type"), page.Body)
	}
	none := s.must(t, "/ark:12345/x5meta?info", "Accept", "image/png")
	if none.Code != http.StatusNotAcceptable {
		t.Errorf("Accept image/png: %d", none.Code)
	}
}

func TestMetadataFormatsAtTheirOwnURLs(t *testing.T) {
	s := newSite(t, answer.Config{})
	for _, c := range []struct{ name, contentType, holds string }{
		{"bibtex", "application/x-bibtex; charset=utf-8", "Field notes"},
		{"datacite", "application/vnd.datacite.datacite+xml", "<resource"},
		{"citation", "text/x-bibliography; charset=utf-8", "Curie"},
		{"linkset-json", "application/linkset+json", `"linkset"`},
	} {
		w := s.must(t, "/ark:12345/x5meta?info="+c.name)
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != c.contentType || !strings.Contains(w.Body.String(), c.holds) {
			t.Errorf("%s: %d %q %.120q", c.name, w.Code, w.Header().Get("Content-Type"), w.Body)
		}
		if !strings.Contains(w.Header().Get("Link"), `<https://ark.example.org/ark:12345/x5meta>; rel="describes"`) {
			t.Errorf("%s: Link %q", c.name, w.Header().Get("Link"))
		}
	}
	var linkset map[string]any
	if err := json.Unmarshal(s.must(t, "/ark:12345/x5meta?info=linkset-json").Body.Bytes(), &linkset); err != nil {
		t.Errorf("the JSON linkset does not parse: %v", err)
	}
	if w := s.must(t, "/ark:12345/x5meta?info=citation&style=nostyle"); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "no citation style") {
		t.Errorf("unknown style: %d %q", w.Code, w.Body)
	}
}

func TestNegotiationRedirectsToTheFormat(t *testing.T) {
	on := newSite(t, answer.Config{})
	w := on.must(t, "/ark:12345/x5meta", "Accept", "application/x-bibtex")
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "https://ark.example.org/ark:12345/x5meta?info=bibtex" ||
		w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("negotiated: %d %q", w.Code, w.Header())
	}
	if w := on.must(t, "/ark:12345/x5meta", "Accept", "*/*"); w.Code != http.StatusFound {
		t.Errorf("*/*: %d, want the target's redirect", w.Code)
	}
	off := newSite(t, answer.Config{NoNegotiation: true})
	if w := off.must(t, "/ark:12345/x5meta", "Accept", "application/x-bibtex"); w.Code != http.StatusFound || w.Header().Get("Vary") != "" {
		t.Errorf("negotiate off: %d, Vary %q", w.Code, w.Header().Get("Vary"))
	}
}

func TestSignpostingOnAndOff(t *testing.T) {
	on := newSite(t, answer.Config{})
	link := strings.Join(on.must(t, "/ark:12345/x5meta").Header().Values("Link"), ", ")
	for _, want := range []string{`rel="cite-as"`, `?info=datacite>; rel="describedby"`, `rel="license"`, `rel="linkset"`} {
		if !strings.Contains(link, want) {
			t.Errorf("signposting on: Link lacks %s: %q", want, link)
		}
	}
	off := newSite(t, answer.Config{NoSignposting: true})
	link = strings.Join(off.must(t, "/ark:12345/x5meta").Header().Values("Link"), ", ")
	if link != `<https://ark.example.org/ark:12345/x5meta?info>; rel="describedby"` {
		t.Errorf("signposting off: Link %q", link)
	}
	named := newSite(t, answer.Config{SignpostFormats: []string{"ris"}})
	link = strings.Join(named.must(t, "/ark:12345/x5wf6789").Header().Values("Link"), ", ")
	if !strings.Contains(link, `?info=ris>; rel="describedby"`) || strings.Contains(link, "?info=datacite") {
		t.Errorf("signpost_formats ris: Link %q", link)
	}
}

func TestMetadataDefaultsFillWhatAnEntryLacks(t *testing.T) {
	s := newSite(t, answer.Config{MetadataDefaults: []answer.MetadataDefaults{{Prefix: "ark:12345/x5", Meta: map[string]string{"publisher": "Example Museum"}}}})
	if w := s.must(t, "/ark:12345/x5wf6789?info=bibtex"); !strings.Contains(w.Body.String(), "Example Museum") {
		t.Errorf("no default publisher: %q", w.Body)
	}
}

func TestWellKnownNamesTheService(t *testing.T) {
	s := newSite(t, answer.Config{})
	w := s.must(t, "/.well-known/ark")
	if w.Code != http.StatusOK || w.Body.String() != "https://ark.example.org/" || w.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("%d %q", w.Code, w.Body)
	}
	post, _, err := s.get(t, http.MethodPost, "/.well-known/ark", nil)
	if err != nil || post.Code != http.StatusMethodNotAllowed || post.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %v %d %q", err, post.Code, post.Header().Get("Allow"))
	}
}

func TestReadinessSaysWhatIsWrong(t *testing.T) {
	s := newSite(t, answer.Config{Ready: "/healthz/ark"})
	w := s.must(t, "/healthz/ark")
	var rd struct {
		Ready         bool
		Store, Tables string
	}
	if err := json.Unmarshal(w.Body.Bytes(), &rd); err != nil || w.Code != http.StatusOK || !rd.Ready || rd.Store != "none" || rd.Tables != "ok" {
		t.Errorf("ready: %v %d %q", err, w.Code, w.Body)
	}
	s.rs = nil // the configuration is being replaced
	w = s.must(t, "/healthz/ark")
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), `"ready":false`) {
		t.Errorf("not ready: %d %q %q", w.Code, w.Header(), w.Body)
	}
	if _, _, err := s.get(t, http.MethodGet, "/ark:12345/x5wf6789", nil); !isStatus(err, http.StatusServiceUnavailable) {
		t.Errorf("an identifier while the configuration is replaced: %v", err)
	}
}

func TestReadinessAsksTheStore(t *testing.T) {
	st := testkit.Provision(t, &bolt.Store{Path: filepath.Join(t.TempDir(), "store.db")})
	tbl, err := table.Load(nil, entries)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := resolve.New(resolve.Options{Table: tbl, NAANs: []string{"12345"}, MaxLength: 1024, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	s := newSite(t, answer.Config{Ready: "/healthz/ark", Store: st})
	s.rs = rs
	if w := s.must(t, "/healthz/ark"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"store":"ok"`) {
		t.Errorf("with a store: %d %q", w.Code, w.Body)
	}
}

// isStatus reports whether err is a Caddy handler error with status.
func isStatus(err error, status int) bool {
	var he caddyhttp.HandlerError
	return errors.As(err, &he) && he.StatusCode == status
}

func TestOtherRequestsPassUntouched(t *testing.T) {
	s := newSite(t, answer.Config{})
	next := new(fileServer)
	w, _, err := s.get(t, http.MethodGet, "/objects/inplace.html?x=1", next)
	if err != nil || w.Code != http.StatusOK || next.served != "/objects/inplace.html" || w.Header().Get("Link") != "" {
		t.Errorf("%v %d served %q Link %q", err, w.Code, next.served, w.Header().Get("Link"))
	}
}

func TestLinksWithoutBaseURLArePathAbsolute(t *testing.T) {
	an := new(answer.Answerer)
	if err := an.Provision(answer.Config{Logger: zap.NewNop()}); err != nil {
		t.Fatal(err)
	}
	defer an.Close()
	r := httptest.NewRequest(http.MethodGet, "http://forged.example/ark:12345/x5", nil)
	if at := an.Links(r); at.Base != "" || at.IdentifierURL("ark:12345/x5") != "/ark:12345/x5" {
		t.Errorf("a request through no configured site links to %q", at.IdentifierURL("ark:12345/x5"))
	}
}

func TestConfigurationChecks(t *testing.T) {
	for _, raw := range []string{"ftp://example.org", "https://example.org/?q", "/relative", "https://user@example.org"} {
		if _, err := answer.ParseBaseURL(raw); err == nil {
			t.Errorf("base_url %q accepted", raw)
		}
	}
	for _, c := range []struct {
		path string
		ok   bool
	}{{"", true}, {"/healthz/ark", true}, {"healthz", false}, {"/ark:12345", false}, {"/api/x", false}} {
		if err := answer.CheckReadyPath(c.path, true, "/api"); (err == nil) != c.ok {
			t.Errorf("ready %q: %v", c.path, err)
		}
	}
	if err := answer.CheckFormatNames([]string{"bibtex", "nonsense"}); err == nil || !strings.Contains(err.Error(), `"nonsense" is not a metadata format`) {
		t.Errorf("format names: %v", err)
	}
	if err := answer.CheckMetadataDefaults([]answer.MetadataDefaults{{Prefix: "ark:12345", Meta: map[string]string{}}}); err == nil {
		t.Error("metadata_defaults without a value accepted")
	}
}
