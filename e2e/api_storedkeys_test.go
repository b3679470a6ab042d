package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// adminKeys adds to an APISite's keys "boss" (secret "boss-secret"), an
// admin that may write ark:12345.
func adminKeys(body string) string {
	return strings.Replace(body, "api /api/ark {", "api /api/ark {\n\t\tkey boss "+caddytest.KeyHash("boss-secret")+" admin write:ark:12345", 1)
}

// startKeysSite starts an APISite with the admin key boss.
func startKeysSite(t *testing.T) *caddytest.APISite {
	t.Helper()
	s := &caddytest.APISite{
		DB:    filepath.Join(t.TempDir(), "ark.db"),
		Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	s.Site = caddytest.StartSite(t, adminKeys(caddytest.APISiteBody(s.DB, s.Table, "")))
	return s
}

// callSecret sends an API request to node with the bearer secret (none
// when "").
func callSecret(t *testing.T, node *caddytest.APISite, method, path, secret, body string) caddytest.Answer {
	t.Helper()
	req, err := http.NewRequest(method, node.Base+"/api/ark"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	resp, err := caddytest.Client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return caddytest.Answer{Status: resp.StatusCode, Body: string(data), Header: resp.Header}
}

// addKey makes a key through node's API with boss, and returns its
// secret.
func addKey(t *testing.T, node *caddytest.APISite, req api.KeyRequest) api.NewKey {
	t.Helper()
	body, _ := json.Marshal(req)
	got := callSecret(t, node, "POST", "/keys", "boss-secret", string(body))
	if got.Status != http.StatusCreated {
		t.Fatalf("POST keys %s: %d %s", body, got.Status, got.Body)
	}
	var k api.NewKey
	if err := json.Unmarshal([]byte(got.Body), &k); err != nil || k.Secret == "" || k.Name != req.Name {
		t.Fatalf("POST keys: %v: %s", err, got.Body)
	}
	return k
}

// expectUnknown checks that secret gets 401 on node, as an unknown key.
func expectUnknown(t *testing.T, node *caddytest.APISite, secret, why string) {
	t.Helper()
	got := callSecret(t, node, "GET", "/id/ark:12345/x5k1", secret, "")
	if got.Status != http.StatusUnauthorized || !strings.Contains(got.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("%s: GET with it: %d %s (WWW-Authenticate %q), want 401 invalid_token", why, got.Status, got.Body, got.Header.Get("WWW-Authenticate"))
	}
}

// A key made through the API works at once with its scopes, writes under
// its own name, is listed without its secret or hash, and stops working
// the moment it is revoked.
func TestAPIStoredKeyMadeUsedListedRevoked(t *testing.T) {
	s := startKeysSite(t)
	k := addKey(t, s, api.KeyRequest{Name: "scanner", Scopes: []string{"write:ark:12345/x5"}, Label: "the scanning room"})
	if k.CreatedBy != "boss" || k.Label != "the scanning room" || !k.Expires.IsZero() {
		t.Errorf("new key: %+v", k.KeyInfo)
	}
	got := callSecret(t, s, "PUT", "/id/ark:12345/x5k1", k.Secret, `{"target": "https://repo.example.org/k1"}`)
	if got.Status != http.StatusCreated {
		t.Fatalf("PUT with the new key: %d %s", got.Status, got.Body)
	}
	if r := s.Lookup("ark:12345/x5k1"); r == nil || r.Binding.By != "scanner" {
		t.Errorf("the binding's writer: %+v, want scanner", r)
	}
	if got := callSecret(t, s, "PUT", "/id/ark:12345/b1k", k.Secret, `{"target": "https://repo.example.org/b1"}`); got.Status != http.StatusForbidden {
		t.Errorf("PUT outside the key's scope: %d %s, want 403", got.Status, got.Body)
	}
	if got := callSecret(t, s, "GET", "/keys", k.Secret, ""); got.Status != http.StatusForbidden {
		t.Errorf("GET keys with a key that is no admin: %d %s, want 403", got.Status, got.Body)
	}

	got = callSecret(t, s, "GET", "/keys", "boss-secret", "")
	var list []map[string]any
	if err := json.Unmarshal([]byte(got.Body), &list); err != nil || got.Status != http.StatusOK || len(list) != 1 {
		t.Fatalf("GET keys: %d %s (%v)", got.Status, got.Body, err)
	}
	if list[0]["name"] != "scanner" || list[0]["created_by"] != "boss" || list[0]["label"] != "the scanning room" {
		t.Errorf("GET keys: %v", list[0])
	}
	for _, secretish := range []string{"hash", "secret"} {
		if _, ok := list[0][secretish]; ok {
			t.Errorf("GET keys shows the key's %s: %v", secretish, list[0])
		}
	}
	if strings.Contains(got.Body, k.Secret) || strings.Contains(got.Body, caddytest.KeyHash(k.Secret)) {
		t.Errorf("GET keys shows the secret or its hash: %s", got.Body)
	}

	if got := callSecret(t, s, "DELETE", "/keys/scanner", "boss-secret", ""); got.Status != http.StatusNoContent {
		t.Fatalf("DELETE keys/scanner: %d %s", got.Status, got.Body)
	}
	expectUnknown(t, s, k.Secret, "a revoked key")
	if got := callSecret(t, s, "DELETE", "/keys/scanner", "boss-secret", ""); got.Status != http.StatusNotFound {
		t.Errorf("DELETE keys/scanner again: %d %s, want 404", got.Status, got.Body)
	}
	expectUnknown(t, s, "not-a-key-at-all", "an unknown key")
}

// Only an admin makes keys, never with more than its own scopes, and
// never under a configured key's name.
func TestAPIStoredKeyScopesBounded(t *testing.T) {
	s := startKeysSite(t)
	for _, c := range []struct {
		secret, body string
		status       int
	}{
		{"editor-secret", `{"name": "k", "scopes": ["read:ark:12345"]}`, http.StatusForbidden},
		{"boss-secret", `{"name": "k", "scopes": ["write:*"]}`, http.StatusForbidden},
		{"boss-secret", `{"name": "k", "scopes": ["write:ark:99999"]}`, http.StatusForbidden},
		{"boss-secret", `{"name": "k", "scopes": ["read:urn:isbn"]}`, http.StatusForbidden},
		{"boss-secret", `{"name": "editor", "scopes": ["read:ark:12345"]}`, http.StatusConflict},
		{"boss-secret", `{"name": "k", "scopes": ["write:nonsense"]}`, http.StatusBadRequest},
		{"boss-secret", `{"name": "two words", "scopes": ["read:ark:12345"]}`, http.StatusBadRequest},
		{"boss-secret", `{"name": "k", "scopes": ["read:ark:12345"], "expires": "2001-01-01T00:00:00Z"}`, http.StatusBadRequest},
		{"boss-secret", `{"name": "k", "scopes": ["read:ark:12345"], "secret": "mine"}`, http.StatusBadRequest},
	} {
		if got := callSecret(t, s, "POST", "/keys", c.secret, c.body); got.Status != c.status {
			t.Errorf("POST keys %s with %s: %d %s, want %d", c.body, c.secret, got.Status, got.Body, c.status)
		}
	}
	deputy := addKey(t, s, api.KeyRequest{Name: "deputy", Scopes: []string{"admin", "write:ark:12345/x5", "read:ark:12345"}})
	if got := callSecret(t, s, "POST", "/keys", deputy.Secret, `{"name": "k", "scopes": ["write:ark:12345/x6"]}`); got.Status != http.StatusForbidden {
		t.Errorf("a deputy giving a write scope beyond its own: %d %s, want 403", got.Status, got.Body)
	}
	got := callSecret(t, s, "POST", "/keys", deputy.Secret, `{"name": "k", "scopes": ["write:ark:12345/x5b", "read:ark:12345/y"]}`)
	if got.Status != http.StatusCreated {
		t.Errorf("a deputy giving scopes within its own: %d %s, want 201", got.Status, got.Body)
	}
	if got := callSecret(t, s, "POST", "/keys", "boss-secret", `{"name": "k", "scopes": ["read:ark:12345"]}`); got.Status != http.StatusConflict {
		t.Errorf("a second key k: %d %s, want 409", got.Status, got.Body)
	}
	addKey(t, s, api.KeyRequest{Name: "odd/100%", Scopes: []string{"read:ark:12345"}})
	if got := callSecret(t, s, "DELETE", "/keys/odd%2F100%25", "boss-secret", ""); got.Status != http.StatusNoContent {
		t.Errorf("DELETE of a key whose name holds / and %%, escaped: %d %s, want 204", got.Status, got.Body)
	}
	if got := callSecret(t, s, "DELETE", "/keys/editor", "boss-secret", ""); got.Status != http.StatusConflict {
		t.Errorf("DELETE keys/editor, a configured key: %d %s, want 409", got.Status, got.Body)
	}
}

// A key past its expiry gets 401, as an unknown key does.
func TestAPIStoredKeyExpires(t *testing.T) {
	s := startKeysSite(t)
	k := addKey(t, s, api.KeyRequest{Name: "brief", Scopes: []string{"read:ark:12345"}, Expires: time.Now().Add(3 * time.Second)})
	if got := callSecret(t, s, "GET", "/id/ark:12345/t1", k.Secret, ""); got.Status == http.StatusUnauthorized {
		t.Fatalf("the key before its expiry: %d %s", got.Status, got.Body)
	}
	testkit.WaitFor(t, "the key to expire", func() bool { return time.Now().After(k.Expires) })
	expectUnknown(t, s, k.Secret, "an expired key")
	got := callSecret(t, s, "GET", "/keys", "boss-secret", "")
	if !strings.Contains(got.Body, `"expired": true`) {
		t.Errorf("GET keys does not say the key expired: %s", got.Body)
	}
}

// A configured key comes first: one added to the configuration under a
// stored key's name hides the stored key, whose secret gets 401.
func TestAPIStoredKeyHiddenByConfiguredName(t *testing.T) {
	s := startKeysSite(t)
	k := addKey(t, s, api.KeyRequest{Name: "later", Scopes: []string{"read:ark:12345"}})
	if got := callSecret(t, s, "GET", "/id/ark:12345/t1", k.Secret, ""); got.Status == http.StatusUnauthorized {
		t.Fatalf("the stored key: %d %s", got.Status, got.Body)
	}
	body := strings.Replace(adminKeys(caddytest.APISiteBody(s.DB, s.Table, "")), "api /api/ark {", "api /api/ark {\n\t\tkey later "+caddytest.KeyHash("later-secret")+" read:ark:12345", 1)
	if err := s.Load(body); err != nil {
		t.Fatal(err)
	}
	expectUnknown(t, s, k.Secret, "a stored key named as a configured one")
	if got := callSecret(t, s, "GET", "/id/ark:12345/t1", "later-secret", ""); got.Status == http.StatusUnauthorized {
		t.Errorf("the configured key later: %d %s", got.Status, got.Body)
	}
}
