package people

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// docsPeopleAndKeys returns the inside of the site block of docs/people.md's
// sample for people and keys on one API, its store in dir.
func docsPeopleAndKeys(t *testing.T, dir string) string {
	t.Helper()
	doc := testkit.ReadFile(t, filepath.Join(caddytest.ModuleRoot(t), "docs", "people.md"))
	_, block, ok := strings.Cut(doc, "```caddyfile\nhttp://localhost:9282 {\n")
	if !ok {
		t.Fatal("docs/people.md has no Caddyfile for people and keys on one API (http://localhost:9282)")
	}
	body, _, ok := strings.Cut(block, "\n}\n```")
	if !ok || !strings.Contains(body, "store bolt ark3.db") {
		t.Fatalf("docs/people.md's people-and-keys sample is not as expected:\n%s", block)
	}
	return strings.Replace(body, "store bolt ark3.db", "store bolt "+filepath.Join(dir, "ark3.db"), 1)
}

// The sample of docs/people.md for people and keys on one API, run as it
// is: a key and a person both write; nobody is asked for a password; a
// key ark does not know is refused by ark, not taken for a person.
func TestPeopleAndKeysOnOneAPIAsDocumented(t *testing.T) {
	s := caddytest.StartSite(t, docsPeopleAndKeys(t, t.TempDir()))
	send := func(method, path, body string, auth func(*http.Request)) caddytest.Answer {
		t.Helper()
		req, err := http.NewRequest(method, s.Base+"/api/ark"+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if auth != nil {
			auth(req)
		}
		resp, err := caddytest.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return caddytest.Answer{Status: resp.StatusCode, Body: string(data), Header: resp.Header}
	}
	bearer := func(secret string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+secret) }
	}
	alice := func(r *http.Request) { r.SetBasicAuth("alice", "alice-pw") }

	expect(t, "the key writes", send("PUT", "/id/ark:12345/x5k1", `{"target": "https://repo.example.org/k1"}`, bearer("robot-secret")), http.StatusCreated, `"by": "robot"`)
	expect(t, "alice writes", send("PUT", "/id/ark:12345/x5a1", `{"target": "https://repo.example.org/a1"}`, alice), http.StatusCreated, `"by": "person:alice"`)
	if got := send("GET", "/id/ark:12345/x5a1", "", nil); got.Status != http.StatusUnauthorized || !strings.HasPrefix(got.Header.Get("Www-Authenticate"), "Basic") {
		t.Errorf("nobody: %d %v", got.Status, got.Header)
	}
	expect(t, "an unknown key", send("PUT", "/id/ark:12345/x5u1", `{"target": "https://repo.example.org/u1"}`, bearer("guessed")), http.StatusUnauthorized, "")
	if got := send("GET", "/id/ark:12345/x5u1", "", alice); got.Status != http.StatusNotFound {
		t.Errorf("what the unknown key sent: %d %s", got.Status, got.Body)
	}
}
