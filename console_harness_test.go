package ark

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// consoleSite is an apiSite whose API has the console at /api/ark/ui/,
// and minters under ark:12345/x5 and ark:12345/y7.
type consoleSite struct {
	*apiSite
	more string // more lines of the ark block
}

// consoleUI is the path of the console's front page.
const consoleUI = "/api/ark/ui/"

// startConsoleSite starts a consoleSite; ui is the api block's ui
// subdirective, with its block if any, and more goes in the ark block.
func startConsoleSite(t *testing.T, ui string, more ...string) *consoleSite {
	t.Helper()
	s := &consoleSite{apiSite: &apiSite{
		db:    filepath.Join(t.TempDir(), "ark.db"),
		table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}, more: strings.Join(more, "\n\t\t")}
	s.site = startSite(t, s.body(apiKeys, ui))
	return s
}

// body is the site block of s with an api block of keys (as apiKeys
// writes them) and ui.
func (s *consoleSite) body(keys, ui string) string {
	return consoleSiteBody(s.db, s.table, keys, ui, s.more)
}

// consoleSiteBody is the site block of a consoleSite whose api block has
// keys (as apiKeys writes them) and ui, and whose ark block has more.
func consoleSiteBody(db, tablePath, keys, ui, more string) string {
	for _, name := range []string{"editor", "reader", "x5"} {
		keys = strings.Replace(keys, "%"+name, keyHash(name+"-secret"), 1)
	}
	return `
	ark {
		naan 12345
		table ` + tablePath + `
		store bolt ` + db + `
		minter ark:12345/x5 .reeddeedk
		minter ark:12345/y7 .reeddeedk
		` + more + `
		api /api/ark {` + keys + `
			` + ui + `
		}
	}
	respond "not the API" 418`
}

// reload loads the site again with keys and ui.
func (s *consoleSite) reload(keys, ui string) {
	s.t.Helper()
	if err := s.load(s.body(keys, ui)); err != nil {
		s.t.Fatalf("reloading: %v", err)
	}
}

// consoleUser is a browser as the HTTP tests play it: a cookie jar,
// redirects not followed.
type consoleUser struct {
	s      *consoleSite
	client *http.Client
}

// newUser returns a user with no cookies yet.
func (s *consoleSite) newUser() *consoleUser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		s.t.Fatal(err)
	}
	return &consoleUser{s: s, client: &http.Client{Jar: jar, CheckRedirect: client.CheckRedirect, Timeout: client.Timeout}}
}

// signIn returns a user signed in with the test key name.
func (s *consoleSite) signIn(name string) *consoleUser {
	s.t.Helper()
	u := s.newUser()
	token := u.token("signin")
	got := u.post("signin", url.Values{"csrf": {token}, "key": {name + "-secret"}})
	if got.status != http.StatusSeeOther || got.location != consoleUI {
		s.t.Fatalf("signing in as %s: %d %s %s", name, got.status, got.location, got.body)
	}
	return u
}

// do sends a request for path, under the console, with body.
func (u *consoleUser) do(method, path string, body io.Reader, header http.Header) answer {
	u.s.t.Helper()
	req, err := http.NewRequest(method, u.s.base+consoleUI+path, body)
	if err != nil {
		u.s.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := u.client.Do(req)
	if err != nil {
		u.s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		u.s.t.Fatal(err)
	}
	return answer{status: resp.StatusCode, location: resp.Header.Get("Location"), body: string(data), header: resp.Header}
}

// get requests a console page.
func (u *consoleUser) get(path string) answer { return u.do(http.MethodGet, path, nil, nil) }

// post posts a form to a console page, with more header fields.
func (u *consoleUser) post(path string, form url.Values, header ...string) answer {
	u.s.t.Helper()
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return u.do(http.MethodPost, path, strings.NewReader(form.Encode()), h)
}

// upload posts the import form with a file.
func (u *consoleUser) upload(token, format, name, content string) answer {
	u.s.t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("csrf", token)
	_ = mw.WriteField("format", format)
	_ = mw.WriteField("encoding", "utf-8")
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = io.WriteString(fw, content)
	_ = mw.Close()
	return u.do(http.MethodPost, "import", &b, http.Header{"Content-Type": {mw.FormDataContentType()}})
}

// csrfValue finds the form token in a page.
var csrfValue = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// token returns the form token of the page at path.
func (u *consoleUser) token(path string) string {
	u.s.t.Helper()
	got := u.get(path)
	m := csrfValue.FindStringSubmatch(got.body)
	if got.status != http.StatusOK || m == nil {
		u.s.t.Fatalf("GET %s: %d, no form token: %s", path, got.status, got.body)
	}
	return m[1]
}

// cookie returns the value of the user's session cookie.
func (u *consoleUser) cookie() string {
	u.s.t.Helper()
	base, _ := url.Parse(u.s.base + consoleUI)
	for _, c := range u.client.Jar.Cookies(base) {
		if c.Name == "ark_console" {
			return c.Value
		}
	}
	u.s.t.Fatal("no session cookie")
	return ""
}

// withCookie requests path with the session cookie value and no other.
func (s *consoleSite) withCookie(method, path, value string, form url.Values) answer {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+consoleUI+path, strings.NewReader(form.Encode()))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: "ark_console", Value: value})
	resp, err := client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, location: resp.Header.Get("Location"), body: string(data), header: resp.Header}
}

// expectSignedOut fails unless a GET of the front page with the cookie
// value is sent to sign in, and a change with it is refused.
func (s *consoleSite) expectSignedOut(what, value, token string) {
	s.t.Helper()
	if got := s.withCookie(http.MethodGet, "", value, nil); got.status != http.StatusSeeOther || got.location != consoleUI+"signin" {
		s.t.Errorf("%s: GET the front page: %d %s, want 303 to the sign-in page", what, got.status, got.location)
	}
	form := url.Values{"csrf": {token}, "version": {"0"}, "target": {"https://forged.example.org/"}, "status": {"302"}}
	if got := s.withCookie(http.MethodPost, "edit/ark:12345/x5forged", value, form); got.status != http.StatusForbidden || !strings.Contains(got.body, "not signed in") {
		s.t.Errorf("%s: POST edit: %d %s, want 403, not signed in", what, got.status, got.body)
	}
	// Looked up with the reader's key, which the tests never remove.
	if got := s.call("GET", "/id/ark:12345/x5forged", "reader", ""); got.status != http.StatusNotFound {
		s.t.Errorf("%s: the forged edit was done: %d %s", what, got.status, got.body)
	}
}
