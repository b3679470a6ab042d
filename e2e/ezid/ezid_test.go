package ezid

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddyserver/caddy/v2"
)

// TestEZIDOperations runs the API document's operations on bbolt.
func TestEZIDOperations(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	testOperations(t, s)
}

// testOperations follows "Operation: create identifier", "get identifier
// metadata", "update identifier", "create or update identifier" and
// "Error reporting", as their examples show them.
func testOperations(t *testing.T, s *ezidSite) {
	s.expect(s.call("GET", "/status", ""), http.StatusOK, "success: EZID is up")

	// Without credentials, a change is refused with EZID's challenge.
	a := s.call("PUT", "/id/ark:/12345/x5test", "_target: http://www.cdlib.org/\n")
	s.expect(a, http.StatusUnauthorized, "error: unauthorized")
	if got := a.Header.Get("WWW-Authenticate"); got != `Basic realm="EZID"` {
		t.Errorf("WWW-Authenticate %q", got)
	}
	// Credentials that basic_auth refuses: its challenge, with EZID's line.
	a = s.call("PUT", "/id/ark:/12345/x5test", "_target: http://www.cdlib.org/\n", "basic", "alice:wrong")
	if a.Status != http.StatusUnauthorized || a.Body != "error: unauthorized" || a.Header.Get("WWW-Authenticate") != `Basic realm="EZID"` {
		t.Errorf("wrong password: %d %q %q", a.Status, a.Body, a.Header.Get("WWW-Authenticate"))
	}

	// Create.
	a = s.call("PUT", "/id/ark:/12345/x5test", "_target: http://www.cdlib.org/\n", "basic", alice)
	s.expect(a, http.StatusCreated, "success: ark:/12345/x5test")
	if a.Body != "success: ark:/12345/x5test" {
		t.Errorf("the status line alone: %q", a.Body)
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/x5test": "http://www.cdlib.org/", "/ark:/12345/x5test": "http://www.cdlib.org/"})
	s.expect(s.call("PUT", "/id/ark:/12345/x5test", "_target: http://www.cdlib.org/\n", "basic", alice),
		http.StatusBadRequest, "error: bad request - identifier already exists, cannot create")

	// Get, without credentials: anyone may.
	m := s.expect(s.call("GET", "/id/ark:/12345/x5test", ""), http.StatusOK, "success: ark:/12345/x5test")
	for name, want := range map[string]string{"_target": "http://www.cdlib.org/", "_owner": "alice", "_status": "public", "_export": "yes", "_profile": "erc"} {
		if m[name] != want {
			t.Errorf("%s: %q, want %q (all: %v)", name, m[name], want, m)
		}
	}
	for _, name := range []string{"_created", "_updated"} {
		if !regexp.MustCompile(`^[0-9]{10}$`).MatchString(m[name]) {
			t.Errorf("%s: %q is not a Unix time", name, m[name])
		}
	}

	// Update: overwrite, add, and delete with an empty value.
	s.expect(s.call("POST", "/id/ark:/12345/x5test", "erc.who: Proust, Marcel\nerc.what: Remembrance of Things Past\nerc.when: 1922\n", "basic", alice),
		http.StatusOK, "success: ark:/12345/x5test")
	s.expect(s.call("POST", "/id/ark:/12345/x5test", "_target: http://www.gutenberg.org/ebooks/7178\nerc.when:\n", "basic", alice),
		http.StatusOK, "success: ark:/12345/x5test")
	m = s.expect(s.call("GET", "/id/ark:/12345/x5test", ""), http.StatusOK, "success: ark:/12345/x5test")
	if m["erc.who"] != "Proust, Marcel" || m["erc.what"] != "Remembrance of Things Past" || m["erc.when"] != "" || m["_target"] != "http://www.gutenberg.org/ebooks/7178" {
		t.Errorf("after the updates: %v", m)
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/x5test": "http://www.gutenberg.org/ebooks/7178"})
	// The metadata model reads the ERC elements: ?info shows them.
	if info := s.Get("/ark:12345/x5test?info"); !strings.Contains(info.Body, "Proust, Marcel") {
		t.Errorf("?info: %d %q", info.Status, info.Body)
	}

	// Create or update.
	s.expect(s.call("PUT", "/id/ark:/12345/x5test?update_if_exists=yes", "_target: http://www.cdlib.org/\n", "basic", alice),
		http.StatusOK, "success: ark:/12345/x5test")
	s.expect(s.call("PUT", "/id/ark:/12345/x5new?update_if_exists=yes", "", "basic", alice),
		http.StatusCreated, "success: ark:/12345/x5new")
	// No target: EZID's default, the identifier's EZID URL.
	m = s.expect(s.call("GET", "/id/ark:/12345/x5new", ""), http.StatusOK, "success: ark:/12345/x5new")
	if want := s.Base + s.path + "/id/ark:/12345/x5new"; m["_target"] != want {
		t.Errorf("default target %q, want %q", m["_target"], want)
	}

	// The history and the feed of changes name the person, as for the
	// native API: the EZID API is one more caller of its core.
	var rec struct{ History []store.Change }
	a = s.native("GET", "/id/ark:12345/x5test", "")
	if err := json.Unmarshal([]byte(a.Body), &rec); err != nil || len(rec.History) != 4 {
		t.Fatalf("history: %v %s", err, a.Body)
	}
	for _, ch := range rec.History {
		if ch.By != "person:alice" {
			t.Errorf("change %d by %q", ch.Seq, ch.By)
		}
	}

	// Refusals, in EZID's words, that change nothing.
	s.expect(s.call("GET", "/id/ark:/12345/bogus", ""), http.StatusBadRequest, "error: bad request - no such identifier")
	s.expect(s.call("POST", "/id/ark:/12345/x5none", "erc.who: x\n", "basic", alice), http.StatusBadRequest, "error: bad request - no such identifier")
	s.expect(s.call("PUT", "/id/ark:/12345/x5b", "_target: http://www.cdlib.org/\n", "basic", bob), http.StatusForbidden, "error: forbidden")
	s.expect(s.call("PUT", "/id/ark:/12345/x5b", "", "basic", "carol:carol-pw"), http.StatusForbidden, "error: forbidden")
	s.expect(s.call("PUT", "/id/doi:10.9999/TEST", "", "basic", alice), http.StatusBadRequest,
		"error: bad request - invalid identifier: DOI identifiers are not served here, only ARK and URN identifiers")
	s.expect(s.call("GET", "/id/doi:10.9999/TEST", ""), http.StatusBadRequest, "error: bad request - no such identifier")
	s.expect(s.call("POST", "/id/ark:/12345/x5test", "_crossref: yes\n", "basic", alice), http.StatusBadRequest,
		"error: bad request - _crossref: only DOI identifiers may be registered with Crossref")
	s.expect(s.call("POST", "/id/ark:/12345/x5test", "_created: 1\n", "basic", alice), http.StatusBadRequest,
		"error: bad request - _created: field is not settable")
	s.expect(s.call("POST", "/id/ark:/12345/x5test", "_export: maybe\n", "basic", alice), http.StatusBadRequest,
		"error: bad request - _export: value must be 'yes' or 'no'")
	s.expect(s.call("POST", "/id/ark:/12345/x5test", "_owner: bob\n", "basic", alice), http.StatusBadRequest,
		"error: bad request - ownership change prohibited")
	s.expect(s.call("POST", "/id/ark:/12345/x5test", "_target: javascript:alert(1)\n", "basic", alice), http.StatusBadRequest,
		"error: bad request - ark:12345/x5test: target \"javascript:alert(1)\": neither a path starting with \"/\" nor an absolute http(s) URL")
	m = s.expect(s.call("GET", "/id/ark:/12345/x5test", ""), http.StatusOK, "success: ark:/12345/x5test")
	if m["_target"] != "http://www.cdlib.org/" || m["_owner"] != "alice" || m["_export"] != "yes" {
		t.Errorf("a refusal changed something: %v", m)
	}
	// A table's identifier is the table's.
	s.expect(s.call("POST", "/id/ark:/12345/x5t", "erc.who: x\n", "basic", alice), http.StatusBadRequest,
		"error: bad request - ark:12345/x5t is assigned by "+s.table+" entry 1: change it there, not through the API")
	s.expect(s.call("GET", "/id/ark:/12345/x5t", ""), http.StatusBadRequest, "error: bad request - no such identifier")
}

// TestEZIDBodies: ANVL as the API document specifies request bodies,
// and EZID's refusals of others.
func TestEZIDBodies(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	body := "# a comment\n_target: https://example.org/a?b=100%25\nerc.who: Proust,\n  Marcel\nerc%3Awhat: line one%0Aline two\r\n_profile: erc\n"
	s.expect(s.call("PUT", "/id/ark:/12345/x5body", body, "basic", alice), http.StatusCreated, "success: ark:/12345/x5body")
	a := s.call("GET", "/id/ark:/12345/x5body", "")
	m := s.expect(a, http.StatusOK, "success: ark:/12345/x5body")
	if m["_target"] != "https://example.org/a?b=100%" || m["erc.who"] != "Proust, Marcel" || m["erc:what"] != "line one\nline two" {
		t.Errorf("elements read back: %q", m)
	}
	if !strings.Contains(a.Body, "\nerc%3Awhat: line one%0Aline two\n") || !strings.Contains(a.Body, "\n_target: https://example.org/a?b=100%25\n") {
		t.Errorf("the answer is not percent-encoded as EZID encodes: %q", a.Body)
	}
	for _, c := range []struct{ body, contentType, line string }{
		{"erc.who Proust", "text/plain", "error: bad request - ANVL parse error (no colon in line)"},
		{"a: 1\na: 2", "text/plain", "error: bad request - ANVL parse error (repeated label)"},
		{"a: 50%", "text/plain; charset=UTF-8", "error: bad request - ANVL parse error (percent-decode error)"},
		{"a: \xff", "text/plain", "error: bad request - character decoding error"},
		{"a: 1", "application/x-www-form-urlencoded", "error: bad request - If specified, Content-Type must be text/plain and encoding must be UTF-8"},
		{"a: 1", "text/plain; charset=ISO-8859-1", "error: bad request - If specified, Content-Type must be text/plain and encoding must be UTF-8"},
	} {
		a := s.call("POST", "/id/ark:/12345/x5body", c.body, "basic", alice, "Content-Type", c.contentType)
		s.expect(a, http.StatusBadRequest, c.line)
	}
	s.expect(s.call("GET", "/id/ark:/12345/x5body?color=red", ""), http.StatusBadRequest, "error: bad request - unrecognized URL query parameter 'color'")
	s.expect(s.call("PATCH", "/id/ark:/12345/x5body", "", "basic", alice), http.StatusMethodNotAllowed, "error: method not allowed")
	s.expect(s.call("POST", "/login", "", "basic", alice), http.StatusMethodNotAllowed, "error: method not allowed")
	m = s.expect(s.call("GET", "/id/ark:/12345/x5body", ""), http.StatusOK, "success: ark:/12345/x5body")
	if m["a"] != "" {
		t.Errorf("a refused body changed something: %v", m)
	}
}

// TestEZIDUnderAPath serves EZID's API under /ezid: the site's root is
// left alone.
func TestEZIDUnderAPath(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "/ezid", "")
	s.expect(s.call("PUT", "/id/ark:/12345/x5p", "_target: https://example.org/p\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5p")
	m := s.expect(s.call("GET", "/id/ark:/12345/x5p", ""), http.StatusOK, "success: ark:/12345/x5p")
	if m["_target"] != "https://example.org/p" {
		t.Errorf("%v", m)
	}
	if a := s.Get("/id/ark:/12345/x5p"); strings.HasPrefix(a.Body, "success") {
		t.Errorf("the root's /id/ answers as EZID's API: %d %q", a.Status, a.Body)
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/x5p": "https://example.org/p"})
}

// TestEZIDCrossSite: a change that a browser sends from another site's
// page, with the Basic credentials it caches or the session cookie, is
// refused and changes nothing.
func TestEZIDCrossSite(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	s.expect(s.call("PUT", "/id/ark:/12345/x5c", "_target: https://example.org/c\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5c")
	for _, h := range [][]string{{"Sec-Fetch-Site", "cross-site"}, {"Origin", "https://evil.example"}, {"Sec-Fetch-Site", "same-site"}} {
		s.expect(s.call("POST", "/id/ark:/12345/x5c", "_target: https://evil.example/\n", "basic", alice, h[0], h[1]), http.StatusForbidden, "error: forbidden")
		s.expect(s.call("DELETE", "/id/ark:/12345/x5c", "", "basic", alice, h[0], h[1]), http.StatusForbidden, "error: forbidden")
		s.expect(s.call("GET", "/login", "", "basic", alice, h[0], h[1]), http.StatusForbidden, "error: forbidden")
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/x5c": "https://example.org/c"})
	// The site's own origin is no other site.
	s.expect(s.call("POST", "/id/ark:/12345/x5c", "erc.who: A\n", "basic", alice, "Origin", s.Base, "Sec-Fetch-Site", "same-origin"), http.StatusOK, "success: ark:/12345/x5c")
}

// TestEZIDLoginLogout: "One-time login": a session cookie named as
// EZID's, which then stands for the credentials until logout.
func TestEZIDLoginLogout(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	s.expect(s.call("GET", "/login", ""), http.StatusUnauthorized, "error: unauthorized")
	a := s.call("GET", "/login", "", "basic", alice)
	s.expect(a, http.StatusOK, "success: session cookie returned")
	set := a.Header.Get("Set-Cookie")
	cookie, _, _ := strings.Cut(set, ";") // as the API document's Python example takes it
	if !strings.HasPrefix(cookie, "sessionid=") || len(cookie) < len("sessionid=")+32 {
		t.Fatalf("Set-Cookie %q", set)
	}
	for _, attr := range []string{"Path=/", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(set, attr) {
			t.Errorf("Set-Cookie %q lacks %s", set, attr)
		}
	}
	if strings.Contains(set, "Secure") {
		t.Errorf("Set-Cookie %q: Secure over http", set)
	}
	s.expect(s.call("PUT", "/id/ark:/12345/x5s", "_target: https://example.org/s\n", "Cookie", cookie), http.StatusCreated, "success: ark:/12345/x5s")
	m := s.expect(s.call("GET", "/id/ark:/12345/x5s", ""), http.StatusOK, "success: ark:/12345/x5s")
	if m["_owner"] != "alice" {
		t.Errorf("_owner %q", m["_owner"])
	}
	// The session has the person's scopes of the moment: not y7.
	s.expect(s.call("PUT", "/id/ark:/12345/y7s", "", "Cookie", cookie), http.StatusForbidden, "error: forbidden")

	a = s.call("GET", "/logout", "", "Cookie", cookie)
	s.expect(a, http.StatusOK, "success: authentication credentials flushed")
	if !strings.Contains(a.Header.Get("Set-Cookie"), "sessionid=;") {
		t.Errorf("logout's Set-Cookie %q", a.Header.Get("Set-Cookie"))
	}
	s.expect(s.call("POST", "/id/ark:/12345/x5s", "erc.who: A\n", "Cookie", cookie), http.StatusUnauthorized, "error: unauthorized")
}

// TestEZIDPrefixMatch follows "Suffix passthrough / prefix matching":
// the longest identifier the requested one starts with, and a status line
// that says so.
func TestEZIDPrefixMatch(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	s.expect(s.call("PUT", "/id/ark:/12345/x5/root", "_target: http://www.cdlib.org\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5/root")
	m := s.expect(s.call("GET", "/id/ark:/12345/x5/root/andmore?prefix_match=yes", ""), http.StatusOK, "success: ark:/12345/x5/root in_lieu_of ark:/12345/x5/root/andmore")
	if m["_target"] != "http://www.cdlib.org/" { // a URL with no path gets "/", as every target
		t.Errorf("%v", m)
	}
	s.expect(s.call("GET", "/id/ark:/12345/x5/root?prefix_match=yes", ""), http.StatusOK, "success: ark:/12345/x5/root")
	s.expect(s.call("GET", "/id/ark:/12345/x5/root/andmore", ""), http.StatusBadRequest, "error: bad request - no such identifier")
	s.expect(s.call("GET", "/id/ark:/12345/x6?prefix_match=yes", ""), http.StatusBadRequest, "error: bad request - no such identifier")
	s.expect(s.call("GET", "/id/ark:/12345/x5/root?prefix_match=maybe", ""), http.StatusBadRequest, "error: bad request - invalid value for URL query parameter 'prefix_match'")
	// N2T's suffix passthrough, which the site does too.
	s.ExpectRedirects(map[string]string{"/ark:12345/x5/root/andmore": "http://www.cdlib.org/andmore"})
}

// TestEZIDDataCiteXML: a whole-record "datacite" element, percent-encoded
// as the API document shows it, is given back as written but for the
// identifier, which EZID embeds in it ("Profile datacite"), and read into
// the metadata model, which the site's DataCite format shows.
func TestEZIDDataCiteXML(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	doc := `<?xml version="1.0"?>` + "\n" + `<resource xmlns="http://datacite.org/schema/kernel-4"><identifier identifierType="ARK">(:tba)</identifier>` +
		`<creators><creator><creatorName>Proust, Marcel</creatorName></creator></creators><titles><title>Remembrance of Things Past</title></titles>` +
		`<publisher>Grasset</publisher><publicationYear>1922</publicationYear><resourceType resourceTypeGeneral="Text">Novel</resourceType></resource>`
	body := "_profile: datacite\n_target: https://example.org/proust\ndatacite: " + strings.ReplaceAll(strings.ReplaceAll(doc, "%", "%25"), "\n", "%0A") + "\n"
	s.expect(s.call("PUT", "/id/ark:/12345/x5dc", body, "basic", alice), http.StatusCreated, "success: ark:/12345/x5dc")
	m := s.expect(s.call("GET", "/id/ark:/12345/x5dc", ""), http.StatusOK, "success: ark:/12345/x5dc")
	if want := strings.Replace(doc, "(:tba)", "12345/x5dc", 1); m["datacite"] != want || m["_profile"] != "datacite" {
		t.Errorf("given back: %q", m["datacite"])
	}
	a := s.Get("/ark:12345/x5dc?info=datacite")
	for _, want := range []string{"<title>Remembrance of Things Past</title>", "<publisher>Grasset</publisher>", "<publicationYear>1922</publicationYear>", `resourceTypeGeneral="Text">Novel<`, "Proust"} {
		if !strings.Contains(a.Body, want) {
			t.Errorf("?info=datacite lacks %s: %s", want, a.Body)
		}
	}
}

// TestEZIDSessionIsTheSite's: a session cookie is valid for the host it
// was made on only, not for another site of the same Caddy whose people
// may be others of the same names.
func TestEZIDSessionIsTheSites(t *testing.T) {
	s := &ezidSite{table: testkit.WriteTable(t, []any{})}
	s.Site = &caddytest.Site{T: t, CatchAll: true} // any Host
	if err := s.Load(siteBody(t, boltStore(t), s.table, "", "")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	cookie, _, _ := strings.Cut(s.call("GET", "/login", "", "basic", alice).Header.Get("Set-Cookie"), ";")
	s.expect(s.call("PUT", "/id/ark:/12345/x5h", "", "Cookie", cookie), http.StatusCreated, "success: ark:/12345/x5h")
	s.expect(s.call("POST", "/id/ark:/12345/x5h", "erc.who: A\n", "Cookie", cookie, "Host", "other.example"), http.StatusUnauthorized, "error: unauthorized")
}
