package ezid

import (
	"encoding/base64"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
	"golang.org/x/crypto/bcrypt"
)

// The people of the test sites: alice may create under ark:12345/x5 (and
// read all of 12345), bob under ark:12345/y7; the key "admin" is the
// native API's.
const (
	alice = "alice:alice-pw"
	bob   = "bob:bob-pw"
)

// ezidSite is a site whose api block serves EZID's API at path ("" for
// the root), with basic_auth on credentials that are sent.
type ezidSite struct {
	*caddytest.Site
	path  string
	table string
}

// storeLine is the ark block's store line of a site on a bolt file in a
// temporary directory.
func boltStore(t *testing.T) string {
	return "store bolt " + filepath.Join(t.TempDir(), "ark.db")
}

// startEZIDSite starts a site with EZID's API at path, on the store of
// storeLine, with the lines of ezid's block ezidBlock ("" for none).
func startEZIDSite(t *testing.T, storeLine, path, ezidBlock string) *ezidSite {
	t.Helper()
	s := &ezidSite{path: path, table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}, {ID: "ark:12345/x5t", Target: "https://table.example.org/x5t"}})}
	s.Site = caddytest.StartSite(t, siteBody(t, storeLine, s.table, path, ezidBlock))
	return s
}

// siteBody is the site block: basic_auth (realm EZID) for requests that
// carry Basic credentials, as EZID's clients send them, so that anyone
// may read without; its 401 answered with EZID's status line; then ark,
// with EZID's API at path and the lines of ezid's block ezidBlock.
func siteBody(t testing.TB, storeLine, tablePath, path, ezidBlock string) string {
	t.Helper()
	ezidLine := "ezid"
	if path != "" {
		ezidLine += " " + path
	}
	if ezidBlock != "" {
		ezidLine += " {\n" + ezidBlock + "\n}"
	}
	return `
	@credentials header Authorization "Basic *"
	route {
		basic_auth @credentials bcrypt EZID {
			alice ` + bcryptHash(t, "alice-pw") + `
			bob ` + bcryptHash(t, "bob-pw") + `
			carol ` + bcryptHash(t, "carol-pw") + `
		}
		ark {
			naan 12345
			table ` + tablePath + `
			` + storeLine + `
			minter ark:12345/x5 .reeddeedk
			minter ark:12345/y7 .reeddeedk
			api /api/ark {
				key admin ` + caddytest.KeyHash("admin-secret") + ` admin write:*
				people basic_auth
				person alice write:ark:12345/x5 read:ark:12345
				person bob write:ark:12345/y7
				` + ezidLine + `
				ui
			}
			oai /oai {
				admin_email admin@example.org
				repository_name "Example ARKs"
			}
		}
	}
	handle_errors 401 {
		header Content-Type "text/plain; charset=UTF-8"
		respond "error: unauthorized" 401
	}`
}

func bcryptHash(t testing.TB, password string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

// call sends an EZID request: method, path under the EZID API's path
// (such as "/id/ark:/12345/x5a"), an ANVL body ("" for none) as
// text/plain, and header's fields (name, value, ...; "basic" sends
// user:password as Basic credentials).
func (s *ezidSite) call(method, path, body string, header ...string) caddytest.Answer {
	s.T.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.Base+s.path+path, rd)
	if err != nil {
		s.T.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "text/plain; charset=UTF-8")
	}
	for i := 0; i+1 < len(header); i += 2 {
		switch header[i] {
		case "basic":
			user, pass, _ := strings.Cut(header[i+1], ":")
			req.SetBasicAuth(user, pass)
			continue
		case "Host":
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := caddytest.Client.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		s.T.Fatal(err)
	}
	return caddytest.Answer{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(data), Header: resp.Header}
}

// expect checks an answer's status and status line, and that it is
// text/plain in UTF-8, and returns the elements after the status line.
func (s *ezidSite) expect(a caddytest.Answer, status int, line string) map[string]string {
	s.T.Helper()
	first, rest, _ := strings.Cut(a.Body, "\n")
	if a.Status != status || first != line {
		s.T.Fatalf("got %d %q, want %d %q", a.Status, a.Body, status, line)
	}
	if ct := a.Header.Get("Content-Type"); ct != "text/plain; charset=UTF-8" {
		s.T.Errorf("Content-Type %q", ct)
	}
	elems, err := anvl.Parse(rest)
	if err != nil {
		s.T.Fatalf("the answer's elements: %v in %q", err, rest)
	}
	m := map[string]string{}
	for _, e := range elems {
		m[e.Name] = e.Value
	}
	return m
}

// native sends a request to the native API with the admin key.
func (s *ezidSite) native(method, path, body string) caddytest.Answer {
	s.T.Helper()
	api := &caddytest.APISite{Site: s.Site}
	return api.Call(method, path, "admin", body)
}

// basicHeader is the Authorization field of user:password's Basic
// credentials.
func basicHeader(userPassword string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(userPassword))
}
