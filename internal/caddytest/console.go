package caddytest

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

// ConsoleSite is an APISite whose API has the console at /api/ark/ui/,
// and minters under ark:12345/x5 and ark:12345/y7.
type ConsoleSite struct {
	*APISite
	// More is more lines of the ark block.
	More string
}

// ConsoleUI is the path of the console's front page.
const ConsoleUI = "/api/ark/ui/"

// StartConsoleSite starts a ConsoleSite; ui is the api block's ui
// subdirective, with its block if any, and more goes in the ark block.
func StartConsoleSite(t *testing.T, ui string, more ...string) *ConsoleSite {
	t.Helper()
	s := &ConsoleSite{APISite: &APISite{
		DB:    filepath.Join(t.TempDir(), "ark.db"),
		Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}, More: strings.Join(more, "\n\t\t")}
	s.Site = StartSite(t, s.Body(APIKeys, ui))
	return s
}

// Body is the site block of s with an api block of keys (as APIKeys
// writes them) and ui.
func (s *ConsoleSite) Body(keys, ui string) string {
	return ConsoleSiteBody(s.DB, s.Table, keys, ui, s.More)
}

// ConsoleSiteBody is the site block of a ConsoleSite whose api block has
// keys (as APIKeys writes them) and ui, and whose ark block has more.
func ConsoleSiteBody(db, tablePath, keys, ui, more string) string {
	for _, name := range []string{"editor", "reader", "x5"} {
		keys = strings.Replace(keys, "%"+name, KeyHash(name+"-secret"), 1)
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

// Reload loads the site again with keys and ui.
func (s *ConsoleSite) Reload(keys, ui string) {
	s.T.Helper()
	if err := s.Load(s.Body(keys, ui)); err != nil {
		s.T.Fatalf("reloading: %v", err)
	}
}

// ConsoleUser is a browser as the HTTP tests play it: a cookie jar,
// redirects not followed.
type ConsoleUser struct {
	// Site is the console the user visits.
	Site *ConsoleSite
	// Client keeps the user's cookies.
	Client *http.Client
}

// NewUser returns a user with no cookies yet.
func (s *ConsoleSite) NewUser() *ConsoleUser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		s.T.Fatal(err)
	}
	return &ConsoleUser{Site: s, Client: &http.Client{Jar: jar, CheckRedirect: Client.CheckRedirect}}
}

// SignIn returns a user signed in with the test key name.
func (s *ConsoleSite) SignIn(name string) *ConsoleUser {
	s.T.Helper()
	u := s.NewUser()
	token := u.Token("signin")
	got := u.Post("signin", url.Values{"csrf": {token}, "key": {name + "-secret"}})
	if got.Status != http.StatusSeeOther || got.Location != ConsoleUI {
		s.T.Fatalf("signing in as %s: %d %s %s", name, got.Status, got.Location, got.Body)
	}
	return u
}

// Do sends a request for path, under the console, with body.
func (u *ConsoleUser) Do(method, path string, body io.Reader, header http.Header) Answer {
	u.Site.T.Helper()
	req, err := http.NewRequest(method, u.Site.Base+ConsoleUI+path, body)
	if err != nil {
		u.Site.T.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := u.Client.Do(req)
	if err != nil {
		u.Site.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		u.Site.T.Fatal(err)
	}
	return Answer{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(data), Header: resp.Header}
}

// Get requests a console page.
func (u *ConsoleUser) Get(path string) Answer { return u.Do(http.MethodGet, path, nil, nil) }

// Post posts a form to a console page, with more header fields.
func (u *ConsoleUser) Post(path string, form url.Values, header ...string) Answer {
	u.Site.T.Helper()
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return u.Do(http.MethodPost, path, strings.NewReader(form.Encode()), h)
}

// Upload posts the import form with a file.
func (u *ConsoleUser) Upload(token, format, name, content string) Answer {
	u.Site.T.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("csrf", token)
	_ = mw.WriteField("format", format)
	_ = mw.WriteField("encoding", "utf-8")
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = io.WriteString(fw, content)
	_ = mw.Close()
	return u.Do(http.MethodPost, "import", &b, http.Header{"Content-Type": {mw.FormDataContentType()}})
}

// CSRFValue finds the form token in a page.
var CSRFValue = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// Token returns the form token of the page at path.
func (u *ConsoleUser) Token(path string) string {
	u.Site.T.Helper()
	got := u.Get(path)
	m := CSRFValue.FindStringSubmatch(got.Body)
	if got.Status != http.StatusOK || m == nil {
		u.Site.T.Fatalf("GET %s: %d, no form token: %s", path, got.Status, got.Body)
	}
	return m[1]
}

// Cookie returns the value of the user's session cookie.
func (u *ConsoleUser) Cookie() string {
	u.Site.T.Helper()
	base, _ := url.Parse(u.Site.Base + ConsoleUI)
	for _, c := range u.Client.Jar.Cookies(base) {
		if c.Name == "ark_console" {
			return c.Value
		}
	}
	u.Site.T.Fatal("no session cookie")
	return ""
}

// WithCookie requests path with the session cookie value and no other.
func (s *ConsoleSite) WithCookie(method, path, value string, form url.Values) Answer {
	s.T.Helper()
	req, err := http.NewRequest(method, s.Base+ConsoleUI+path, strings.NewReader(form.Encode()))
	if err != nil {
		s.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: "ark_console", Value: value})
	resp, err := Client.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return Answer{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(data), Header: resp.Header}
}

// ExpectSignedOut fails unless a GET of the front page with the cookie
// value is sent to sign in, and a change with it is refused.
func (s *ConsoleSite) ExpectSignedOut(what, value, token string) {
	s.T.Helper()
	if got := s.WithCookie(http.MethodGet, "", value, nil); got.Status != http.StatusSeeOther || got.Location != ConsoleUI+"signin" {
		s.T.Errorf("%s: GET the front page: %d %s, want 303 to the sign-in page", what, got.Status, got.Location)
	}
	form := url.Values{"csrf": {token}, "version": {"0"}, "target": {"https://forged.example.org/"}, "status": {"302"}}
	if got := s.WithCookie(http.MethodPost, "edit/ark:12345/x5forged", value, form); got.Status != http.StatusForbidden || !strings.Contains(got.Body, "not signed in") {
		s.T.Errorf("%s: POST edit: %d %s, want 403, not signed in", what, got.Status, got.Body)
	}
	// Looked up with the reader's key, which the tests never remove.
	if got := s.Call("GET", "/id/ark:12345/x5forged", "reader", ""); got.Status != http.StatusNotFound {
		s.T.Errorf("%s: the forged edit was done: %d %s", what, got.Status, got.Body)
	}
}
