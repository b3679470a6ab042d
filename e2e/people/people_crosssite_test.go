package people

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// peopleOrKeys matches the API's requests that carry no key: the site's
// authentication runs on those only, so that keys keep working beside
// people.
const peopleOrKeys = `@people {
			path /api/ark/*
			not header Authorization "Bearer *"
		}
		`

// bossKey is an admin key of the cross-site tests' sites.
var bossKey = `key boss ` + caddytest.KeyHash("boss-secret") + ` admin write:ark:12345`

// boss is the header of a request made with bossKey.
var boss = []string{"Authorization", "Bearer boss-secret"}

// browserShape is how a browser sends a request that another page made.
type browserShape struct {
	what   string
	header func(s *peopleSite) []string
}

// crossSiteShapes are the requests a page of another site, or another
// origin of this one, can make a browser send with the person's
// credentials and no CORS preflight: a fetch in no-cors mode, sendBeacon,
// a form (urlencoded, multipart or text/plain), from another site, from
// another port of the same host (same-site but another origin), from a
// sandboxed page (Origin: null), and from browsers too old to send
// Sec-Fetch-Site.
var crossSiteShapes = []browserShape{
	{"fetch no-cors from another site, text/plain", func(*peopleSite) []string {
		return []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "no-cors", "Origin", "https://evil.example", "Content-Type", "text/plain;charset=UTF-8"}
	}},
	{"sendBeacon from another site, urlencoded", func(*peopleSite) []string {
		return []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "no-cors", "Sec-Fetch-Dest", "empty", "Origin", "https://evil.example", "Content-Type", "application/x-www-form-urlencoded;charset=UTF-8"}
	}},
	{"a form from another port of the same host, multipart", func(s *peopleSite) []string {
		return []string{"Sec-Fetch-Site", "same-site", "Sec-Fetch-Mode", "navigate", "Origin", otherPort(s), "Content-Type", "multipart/form-data; boundary=x"}
	}},
	{"a sandboxed page", func(*peopleSite) []string {
		return []string{"Sec-Fetch-Site", "cross-site", "Origin", "null", "Content-Type", "text/plain"}
	}},
	{"an old browser, another port, no type", func(s *peopleSite) []string { return []string{"Origin", otherPort(s)} }},
	{"an old browser, Origin null", func(*peopleSite) []string {
		return []string{"Origin", "null", "Content-Type", "application/x-www-form-urlencoded"}
	}},
}

// otherPort is the origin of another port of s's host.
func otherPort(s *peopleSite) string {
	i := strings.LastIndex(s.Base, ":")
	port, _ := strconv.Atoi(s.Base[i+1:])
	return s.Base[:i+1] + strconv.Itoa(port+1)
}

// write is one request of the API that changes something.
type write struct {
	method, path, body string
}

// crossSiteWrites are every kind of write of the API, each of which would
// change the site seeded by seedCrossSite if it were made.
var crossSiteWrites = []write{
	{"POST", "/withdraw/ark:12345/x5a1", `{"reason": "withdrawn from elsewhere"}`},
	{"POST", "/bulk", `{"op": "bind", "id": "ark:12345/x5a1", "target": "https://phish.example/a1"}`},
	{"POST", "/retarget", `{"from": "https://repo.example.org/", "to": "https://phish.example/"}`},
	{"POST", "/mint/ark:12345/x5?n=2", `{"target": "https://phish.example/{id}"}`},
	{"POST", "/import", `{"entries": [{"id": "ark:12345/x5i1", "target": "https://phish.example/i1"}]}`},
	{"POST", "/batches/1/undo", ``},
	{"POST", "/targets/check?prefix=ark:12345/x9", ``}, // a shoulder with nothing to check: no request leaves the machine
	{"POST", "/keys", `{"name": "planted", "scopes": ["write:ark:12345"]}`},
	{"DELETE", "/keys/scanner", ``},
	{"PUT", "/id/ark:12345/x5a2", `{"target": "https://phish.example/a2"}`},
	{"PATCH", "/id/ark:12345/x5a1", `{"target": "https://phish.example/a1"}`},
}

// seedCrossSite gives s, with the boss key, two bound identifiers, a
// retarget's batch (1) and a stored key, scanner.
func seedCrossSite(t *testing.T, s *peopleSite) {
	t.Helper()
	expect(t, "binding x5a1", s.call("PUT", "/id/ark:12345/x5a1", `{"target": "https://repo.example.org/a1"}`, boss...), http.StatusCreated, "")
	expect(t, "binding x5r1", s.call("PUT", "/id/ark:12345/x5r1", `{"target": "https://old.example.org/r1"}`, boss...), http.StatusCreated, "")
	expect(t, "a retarget, batch 1", s.call("POST", "/retarget", `{"from": "https://old.example.org/", "to": "https://repo.example.org/"}`, boss...), http.StatusOK, `"batch": 1`)
	expect(t, "a stored key", s.call("POST", "/keys", `{"name": "scanner", "scopes": ["write:ark:12345/x5"]}`, boss...), http.StatusCreated, "")
}

// siteState is everything the API's writes can change, as the boss key
// reads it: the bindings, the history, the stored keys and the targets'
// states.
func siteState(t *testing.T, s *peopleSite) string {
	t.Helper()
	var b strings.Builder
	for _, path := range []string{"/export", "/changes", "/keys", "/targets"} {
		got := s.call("GET", path, "", boss...)
		if got.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, got.Status, got.Body)
		}
		b.WriteString(path + "\n" + got.Body + "\n")
	}
	return b.String()
}

// expectCrossSiteRefused sends every write in every cross-site shape
// with the person's credentials: each is refused, 403, saying what to do,
// and the site is as it was.
func expectCrossSiteRefused(t *testing.T, s *peopleSite, person []string) {
	t.Helper()
	before := siteState(t, s)
	for _, shape := range crossSiteShapes {
		for _, w := range crossSiteWrites {
			got := s.call(w.method, w.path, w.body, append(append([]string{}, person...), shape.header(s)...)...)
			expect(t, shape.what+": "+w.method+" "+w.path, got, http.StatusForbidden, "from another site or origin")
			if !strings.Contains(got.Body, "with a key (Authorization: Bearer <key>)") || strings.Count(strings.TrimSpace(refusal(t, got)), "\n") != 0 {
				t.Errorf("%s: %s %s: the refusal %q is not one line saying what to do", shape.what, w.method, w.path, got.Body)
			}
		}
	}
	if after := siteState(t, s); after != before {
		t.Errorf("cross-site writes changed the site:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// refusal is the reason of an API refusal.
func refusal(t *testing.T, got caddytest.Answer) string {
	t.Helper()
	var r struct{ Error string }
	if err := json.Unmarshal([]byte(got.Body), &r); err != nil {
		t.Fatalf("a refusal %q: %v", got.Body, err)
	}
	return r.Error
}

// expectOthersStillWork: the person's writes from the site's own pages
// and from curl, and a key's writes whatever the browser headers, are
// made.
func expectOthersStillWork(t *testing.T, s *peopleSite, person []string) {
	t.Helper()
	sameOrigin := append(append([]string{}, person...), "Sec-Fetch-Site", "same-origin", "Origin", s.Base, "Content-Type", "application/json")
	expect(t, "the person, from the site's own page", s.call("POST", "/withdraw/ark:12345/x5r1", `{"reason": "duplicate"}`, sameOrigin...), http.StatusOK, `"status": 410`)
	curl := append(append([]string{}, person...), "Content-Type", "application/x-www-form-urlencoded")
	expect(t, "the person with curl -d", s.call("POST", "/bulk", `{"op": "bind", "id": "ark:12345/x5c1", "target": "https://repo.example.org/c1"}`, curl...), http.StatusOK, `"status":201`)
	expect(t, "the person with curl -X PUT -d", s.call("PUT", "/id/ark:12345/x5c2", `{"target": "https://repo.example.org/c2"}`, curl...), http.StatusCreated, "")
	keyCrossSite := append(append([]string{}, boss...), "Sec-Fetch-Site", "cross-site", "Origin", "https://elsewhere.example", "Content-Type", "text/plain")
	expect(t, "a key, whatever the browser headers", s.call("POST", "/bulk", `{"op": "bind", "id": "ark:12345/x5k1", "target": "https://repo.example.org/k1"}`, keyCrossSite...), http.StatusOK, `"status":201`)
	for id, target := range map[string]string{"x5c1": "https://repo.example.org/c1", "x5c2": "https://repo.example.org/c2", "x5k1": "https://repo.example.org/k1"} {
		expect(t, "reading "+id, s.call("GET", "/id/ark:12345/"+id, "", boss...), http.StatusOK, `"target": "`+target+`"`)
	}
	// Reading stays open to a link followed from elsewhere, and no answer
	// lets another site read it with the person's credentials.
	got := s.call("GET", "/id/ark:12345/x5a1", "", append(append([]string{}, person...), "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Origin", "https://evil.example")...)
	if got.Status != http.StatusOK {
		t.Errorf("a cross-site read: %d %s", got.Status, got.Body)
	}
	for name := range got.Header {
		if strings.HasPrefix(name, "Access-Control-") {
			t.Errorf("a cross-site read is answered %s: %s", name, got.Header.Get(name))
		}
	}
}

// TestPeopleCrossSiteBasicAuth: with a person's basic_auth credentials,
// which a browser sends by itself once they are cached, no write of the
// API that another site's page (or another port's) can make the browser
// send without a preflight changes anything; the person's own writes
// from the site or from curl, and a key's, are made.
func TestPeopleCrossSiteBasicAuth(t *testing.T) {
	auth := peopleOrKeys + basicAuth(t, "@people", map[string]string{"alice": "alice-pw"})
	s := startPeopleSite(t, auth, `people basic_auth
				person alice admin write:ark:12345
				`+bossKey)
	seedCrossSite(t, s)
	alice := []string{"basic", "alice:alice-pw"}
	expectCrossSiteRefused(t, s, alice)
	expectOthersStillWork(t, s, alice)
}

// TestPeopleCrossSiteForwardAuth: the same with the identity provider's
// cookie behind forward_auth.
func TestPeopleCrossSiteForwardAuth(t *testing.T) {
	idp := startIdentityService(t, map[string][2]string{"tok-erin": {"erin", "curators"}})
	auth := peopleOrKeys + `forward_auth @people ` + idp.addr + ` {
			uri /verify
			copy_headers Remote-User Remote-Groups
		}`
	s := startPeopleSite(t, auth, `people header Remote-User groups Remote-Groups
				group curators admin write:ark:12345
				`+bossKey)
	seedCrossSite(t, s)
	erin := []string{"Cookie", "idp=tok-erin"}
	expectCrossSiteRefused(t, s, erin)
	expectOthersStillWork(t, s, erin)
}
