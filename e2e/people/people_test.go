package people

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
	"golang.org/x/crypto/bcrypt"
)

// peopleSite is a site whose API takes people from Caddy's own
// authentication; call sends requests as a person.
type peopleSite struct {
	*caddytest.Site
	db, table string
}

// startPeopleSite starts a site whose ark block is as peopleBody makes
// it, with auth (Caddy's basic_auth or forward_auth, in the same route,
// before ark) and the api block's people lines.
func startPeopleSite(t *testing.T, auth, people string) *peopleSite {
	t.Helper()
	s := &peopleSite{
		db:    t.TempDir() + "/ark.db",
		table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	s.Site = caddytest.StartSite(t, s.body(auth, people))
	return s
}

// body is the site block: a route with auth, then ark with people.
func (s *peopleSite) body(auth, people string) string {
	return `
	route {
		` + auth + `
		ark {
			naan 12345
			table ` + s.table + `
			store bolt ` + s.db + `
			minter ark:12345/x5 .reeddeedk
			minter ark:12345/y7 .reeddeedk
			api /api/ark {
				` + people + `
				ui
			}
		}
	}`
}

// reload loads the site again with other auth and people.
func (s *peopleSite) reload(auth, people string) {
	s.T.Helper()
	if err := s.Load(s.body(auth, people)); err != nil {
		s.T.Fatalf("reloading: %v", err)
	}
}

// call sends an API request with header's fields (name, value, ...).
func (s *peopleSite) call(method, path, body string, header ...string) caddytest.Answer {
	s.T.Helper()
	req, err := http.NewRequest(method, s.Base+"/api/ark"+path, strings.NewReader(body))
	if err != nil {
		s.T.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "basic" {
			user, pass, _ := strings.Cut(header[i+1], ":")
			req.SetBasicAuth(user, pass)
			continue
		}
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := caddytest.Client.Do(req)
	if err != nil {
		s.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return caddytest.Answer{Status: resp.StatusCode, Body: string(data), Header: resp.Header}
}

// bcryptHash is what caddy hash-password gives for password, base64 as
// basic_auth takes it.
func bcryptHash(t *testing.T, password string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

// basicAuth is a basic_auth directive for users, name to password.
func basicAuth(t *testing.T, path string, users map[string]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("basic_auth " + path + " {\n")
	for name, pw := range users {
		b.WriteString("\t\t\t" + name + " " + bcryptHash(t, pw) + "\n")
	}
	b.WriteString("\t\t}")
	return b.String()
}

// historyBy returns the writers of id's history, oldest first, as the
// API's GET id/<id> gives them to who.
func (s *peopleSite) historyBy(id string, who ...string) []string {
	s.T.Helper()
	got := s.call("GET", "/id/"+id, "", who...)
	if got.Status != http.StatusOK {
		s.T.Fatalf("GET id/%s: %d %s", id, got.Status, got.Body)
	}
	var rec struct{ History []store.Change }
	if err := json.Unmarshal([]byte(got.Body), &rec); err != nil {
		s.T.Fatal(err)
	}
	var by []string
	for _, ch := range rec.History {
		by = append(by, ch.By)
	}
	return by
}

// changesBy returns the identifiers and writers of GET changes with
// query, as who.
func (s *peopleSite) changesBy(query string, who ...string) []string {
	s.T.Helper()
	got := s.call("GET", "/changes?"+query, "", who...)
	if got.Status != http.StatusOK {
		s.T.Fatalf("GET changes?%s: %d %s", query, got.Status, got.Body)
	}
	var out []string
	sc := bufio.NewScanner(strings.NewReader(got.Body))
	for sc.Scan() {
		var ch store.Change
		if err := json.Unmarshal(sc.Bytes(), &ch); err != nil {
			s.T.Fatalf("a change %q: %v", sc.Text(), err)
		}
		out = append(out, ch.Key+" "+ch.By)
	}
	return out
}

// expect fails the test unless got has status and its reason contains
// reason.
func expect(t *testing.T, what string, got caddytest.Answer, status int, reason string) {
	t.Helper()
	if got.Status != status || !strings.Contains(got.Body, reason) {
		t.Errorf("%s: %d %s, want %d with %q", what, got.Status, got.Body, status, reason)
	}
}

// TestPeopleBasicAuth: people whom Caddy's real basic_auth verified use
// the API with the scopes given to their names; the history and the feed
// name them, and the feed filters by writer; a verified user not listed,
// and one taken out of the configuration, are refused with the reason.
func TestPeopleBasicAuth(t *testing.T) {
	users := map[string]string{"alice": "alice-pw", "bob": "bob-pw", "carol": "carol-pw"}
	auth := basicAuth(t, "/api/ark/*", users)
	people := `people basic_auth
				person alice write:ark:12345/x5
				person bob write:ark:12345`
	s := startPeopleSite(t, auth, people)
	alice, bob, carol := []string{"basic", "alice:alice-pw"}, []string{"basic", "bob:bob-pw"}, []string{"basic", "carol:carol-pw"}

	expect(t, "alice binds under her shoulder", s.call("PUT", "/id/ark:12345/x5a1", `{"target": "https://repo.example.org/a1"}`, alice...), http.StatusCreated, "")
	expect(t, "bob binds under the NAAN", s.call("PUT", "/id/ark:12345/y7b1", `{"target": "https://repo.example.org/b1"}`, bob...), http.StatusCreated, "")
	expect(t, "bob changes alice's", s.call("PATCH", "/id/ark:12345/x5a1", `{"target": "https://repo.example.org/a1-bis"}`, append(bob, "Content-Type", "application/merge-patch+json")...), http.StatusOK, "")
	expect(t, "alice outside her scope", s.call("PUT", "/id/ark:12345/y7b1", `{"target": "https://elsewhere.example.org/"}`, alice...), http.StatusForbidden, `"error": "person:alice may not write ark:12345/y7b1`)
	expect(t, "carol, verified but not listed", s.call("GET", "/id/ark:12345/x5a1", "", carol...), http.StatusForbidden, "person carol has no access here")
	if got := s.call("GET", "/id/ark:12345/x5a1", "", "basic", "alice:wrong"); got.Status != http.StatusUnauthorized {
		t.Errorf("a wrong password: %d %s, want basic_auth's 401", got.Status, got.Body)
	}

	if by := strings.Join(s.historyBy("ark:12345/x5a1", alice...), " "); by != "person:alice person:bob" {
		t.Errorf("the history of x5a1 names %q, want person:alice person:bob", by)
	}
	if got := strings.Join(s.changesBy("writer=person:bob", bob...), "; "); got != "ark:12345/y7b1 person:bob; ark:12345/x5a1 person:bob" {
		t.Errorf("changes?writer=person:bob: %q", got)
	}
	if got := strings.Join(s.changesBy("writer=person:alice", bob...), "; "); got != "ark:12345/x5a1 person:alice" {
		t.Errorf("changes?writer=person:alice: %q", got)
	}
	if got := s.changesBy("writer=person:carol", bob...); len(got) != 0 {
		t.Errorf("changes?writer=person:carol: %q, want none", got)
	}

	// Alice leaves: her next request is refused, with no session to end.
	s.reload(auth, `people basic_auth
				person bob write:ark:12345`)
	expect(t, "alice taken out of the configuration", s.call("GET", "/id/ark:12345/x5a1", "", alice...), http.StatusForbidden, "person alice has no access here")
	expect(t, "bob still", s.call("GET", "/id/ark:12345/x5a1", "", bob...), http.StatusOK, "")
}

// identityService is an identity provider as forward_auth asks it: 200
// with Remote-User and Remote-Groups for a session token it knows (in
// the cookie idp), 401 otherwise.
type identityService struct {
	addr string
	mu   sync.Mutex
	// sessions maps a token to the user and groups it answers; a user ""
	// answers 200 with no Remote-User.
	sessions map[string][2]string
}

func startIdentityService(t *testing.T, sessions map[string][2]string) *identityService {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	idp := &identityService{addr: ln.Addr().String(), sessions: sessions}
	srv := &http.Server{Handler: http.HandlerFunc(idp.verify)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return idp
}

func (idp *identityService) verify(w http.ResponseWriter, r *http.Request) {
	var who [2]string
	ok := false
	if ck, err := r.Cookie("idp"); err == nil {
		idp.mu.Lock()
		who, ok = idp.sessions[ck.Value]
		idp.mu.Unlock()
	}
	if !ok {
		http.Error(w, "not signed in", http.StatusUnauthorized)
		return
	}
	if who[0] != "" {
		w.Header().Set("Remote-User", who[0])
		w.Header().Set("Remote-Groups", who[1])
	}
	w.WriteHeader(http.StatusOK)
}

// forget ends a token's session at the identity provider.
func (idp *identityService) forget(token string) {
	idp.mu.Lock()
	defer idp.mu.Unlock()
	delete(idp.sessions, token)
}

// TestPeopleForwardAuth: people named by an identity provider through
// Caddy's real forward_auth get the scopes of their names and groups; a
// Remote-User or Remote-Groups that the client sends itself is never
// believed, whether or not forward_auth copies the header; a person the
// provider forgets, or the configuration drops, is refused at once.
func TestPeopleForwardAuth(t *testing.T) {
	idp := startIdentityService(t, map[string][2]string{
		"tok-erin":    {"erin", "staff, curators"},
		"tok-dave":    {"dave", ""},
		"tok-mallory": {"mallory", "staff"},
		"tok-anon":    {"", ""}, // signed in at the provider, but it names nobody
	})
	auth := `forward_auth ` + idp.addr + ` {
			uri /verify
			copy_headers Remote-User Remote-Groups
		}`
	people := `people header Remote-User groups Remote-Groups
				group curators write:ark:12345/x5
				person dave read:ark:12345`
	s := startPeopleSite(t, auth, people)
	as := func(token string, more ...string) []string {
		return append([]string{"Cookie", "idp=" + token}, more...)
	}

	expect(t, "erin writes as a curator", s.call("PUT", "/id/ark:12345/x5e1", `{"target": "https://repo.example.org/e1"}`, as("tok-erin")...), http.StatusCreated, "")
	expect(t, "erin outside the curators' shoulder", s.call("PUT", "/id/ark:12345/y7e1", `{"target": "https://repo.example.org/e1"}`, as("tok-erin")...), http.StatusForbidden, `"error": "person:erin may not write ark:12345/y7e1`)
	expect(t, "dave reads", s.call("GET", "/id/ark:12345/x5e1", "", as("tok-dave")...), http.StatusOK, `"by": "person:erin"`)
	expect(t, "dave may not write", s.call("PUT", "/id/ark:12345/x5d1", `{"target": "https://repo.example.org/d1"}`, as("tok-dave")...), http.StatusForbidden, `"error": "person:dave may not write`)
	expect(t, "mallory, known to the provider but not here", s.call("GET", "/id/ark:12345/x5e1", "", as("tok-mallory")...), http.StatusForbidden, "person mallory has no access here")

	// Spoofing: headers the client brings are not the provider's answer.
	expect(t, "no session, a Remote-User of its own", s.call("GET", "/id/ark:12345/x5e1", "", "Remote-User", "erin", "Remote-Groups", "curators"), http.StatusUnauthorized, "")
	expect(t, "mallory claiming erin's name and group", s.call("PUT", "/id/ark:12345/x5m1", `{"target": "https://evil.example.org/"}`, as("tok-mallory", "Remote-User", "erin", "Remote-Groups", "curators")...), http.StatusForbidden, "person mallory has no access here")
	expect(t, "a session that names nobody, with a Remote-User of its own", s.call("PUT", "/id/ark:12345/x5m2", `{"target": "https://evil.example.org/"}`, as("tok-anon", "Remote-User", "erin", "Remote-Groups", "curators")...), http.StatusUnauthorized, "")

	// Without copy_headers, the client's header reaches the API
	// untouched: it is still not read.
	bare := `forward_auth ` + idp.addr + ` {
			uri /verify
		}`
	s.reload(bare, people)
	expect(t, "erin, without copy_headers", s.call("GET", "/id/ark:12345/x5e1", "", as("tok-erin")...), http.StatusOK, "")
	expect(t, "mallory claiming erin, without copy_headers", s.call("PUT", "/id/ark:12345/x5m3", `{"target": "https://evil.example.org/"}`, as("tok-mallory", "Remote-User", "erin", "Remote-Groups", "curators")...), http.StatusForbidden, "person mallory has no access here")
	expect(t, "a session that names nobody, claiming erin, without copy_headers", s.call("PUT", "/id/ark:12345/x5m4", `{"target": "https://evil.example.org/"}`, as("tok-anon", "Remote-User", "erin", "Remote-Groups", "curators")...), http.StatusUnauthorized, "")
	// And with no forward_auth on the route at all.
	s.reload(``, people)
	expect(t, "no forward_auth, a Remote-User of its own", s.call("PUT", "/id/ark:12345/x5m5", `{"target": "https://evil.example.org/"}`, "Remote-User", "erin", "Remote-Groups", "curators"), http.StatusUnauthorized, "or a person signed in through the site's basic_auth or forward_auth")
	s.reload(auth, people)

	// The provider forgets erin: refused at once, by forward_auth.
	idp.forget("tok-erin")
	expect(t, "erin signed out at the provider", s.call("GET", "/id/ark:12345/x5e1", "", as("tok-erin")...), http.StatusUnauthorized, "")
	// None of the spoofed writes was made.
	for _, id := range []string{"x5m1", "x5m2", "x5m3", "x5m4", "x5m5"} {
		expect(t, "a spoofed write's "+id, s.call("GET", "/id/ark:12345/"+id, "", as("tok-dave")...), http.StatusNotFound, "")
	}
	// The configuration drops dave: refused on the next request.
	s.reload(auth, `people header Remote-User groups Remote-Groups
				group curators write:ark:12345/x5`)
	expect(t, "dave taken out", s.call("GET", "/id/ark:12345/x5e1", "", as("tok-dave")...), http.StatusForbidden, "person dave has no access here")
}
