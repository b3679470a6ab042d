package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// A key made through the API works at once with its scopes, writes under
// its own name, is listed without its secret or hash, and stops working
// the moment it is revoked.
func TestAPIStoredKeyMadeUsedListedRevoked(t *testing.T) {
	s := caddytest.StartKeysSite(t)
	k := caddytest.AddKey(t, s, api.KeyRequest{Name: "scanner", Scopes: []string{"write:ark:12345/x5"}, Label: "the scanning room"})
	if k.CreatedBy != "boss" || k.Label != "the scanning room" || !k.Expires.IsZero() {
		t.Errorf("new key: %+v", k.KeyInfo)
	}
	got := caddytest.CallSecret(t, s, "PUT", "/id/ark:12345/x5k1", k.Secret, `{"target": "https://repo.example.org/k1"}`)
	if got.Status != http.StatusCreated {
		t.Fatalf("PUT with the new key: %d %s", got.Status, got.Body)
	}
	if r := s.Lookup("ark:12345/x5k1"); r == nil || r.Binding.By != "scanner" {
		t.Errorf("the binding's writer: %+v, want scanner", r)
	}
	if got := caddytest.CallSecret(t, s, "PUT", "/id/ark:12345/b1k", k.Secret, `{"target": "https://repo.example.org/b1"}`); got.Status != http.StatusForbidden {
		t.Errorf("PUT outside the key's scope: %d %s, want 403", got.Status, got.Body)
	}
	if got := caddytest.CallSecret(t, s, "GET", "/keys", k.Secret, ""); got.Status != http.StatusForbidden {
		t.Errorf("GET keys with a key that is no admin: %d %s, want 403", got.Status, got.Body)
	}

	got = caddytest.CallSecret(t, s, "GET", "/keys", "boss-secret", "")
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

	if got := caddytest.CallSecret(t, s, "DELETE", "/keys/scanner", "boss-secret", ""); got.Status != http.StatusNoContent {
		t.Fatalf("DELETE keys/scanner: %d %s", got.Status, got.Body)
	}
	caddytest.ExpectUnknown(t, s, k.Secret, "a revoked key")
	if got := caddytest.CallSecret(t, s, "DELETE", "/keys/scanner", "boss-secret", ""); got.Status != http.StatusNotFound {
		t.Errorf("DELETE keys/scanner again: %d %s, want 404", got.Status, got.Body)
	}
	caddytest.ExpectUnknown(t, s, "not-a-key-at-all", "an unknown key")
}

// Only an admin makes keys, never with more than its own scopes, and
// never under a configured key's name.
func TestAPIStoredKeyScopesBounded(t *testing.T) {
	s := caddytest.StartKeysSite(t)
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
		if got := caddytest.CallSecret(t, s, "POST", "/keys", c.secret, c.body); got.Status != c.status {
			t.Errorf("POST keys %s with %s: %d %s, want %d", c.body, c.secret, got.Status, got.Body, c.status)
		}
	}
	deputy := caddytest.AddKey(t, s, api.KeyRequest{Name: "deputy", Scopes: []string{"admin", "write:ark:12345/x5", "read:ark:12345"}})
	if got := caddytest.CallSecret(t, s, "POST", "/keys", deputy.Secret, `{"name": "k", "scopes": ["write:ark:12345/x6"]}`); got.Status != http.StatusForbidden {
		t.Errorf("a deputy giving a write scope beyond its own: %d %s, want 403", got.Status, got.Body)
	}
	got := caddytest.CallSecret(t, s, "POST", "/keys", deputy.Secret, `{"name": "k", "scopes": ["write:ark:12345/x5b", "read:ark:12345/y"]}`)
	if got.Status != http.StatusCreated {
		t.Errorf("a deputy giving scopes within its own: %d %s, want 201", got.Status, got.Body)
	}
	if got := caddytest.CallSecret(t, s, "POST", "/keys", "boss-secret", `{"name": "k", "scopes": ["read:ark:12345"]}`); got.Status != http.StatusConflict {
		t.Errorf("a second key k: %d %s, want 409", got.Status, got.Body)
	}
	if got := caddytest.CallSecret(t, s, "DELETE", "/keys/editor", "boss-secret", ""); got.Status != http.StatusConflict {
		t.Errorf("DELETE keys/editor, a configured key: %d %s, want 409", got.Status, got.Body)
	}
}

// A key past its expiry gets 401, as an unknown key does.
func TestAPIStoredKeyExpires(t *testing.T) {
	s := caddytest.StartKeysSite(t)
	k := caddytest.AddKey(t, s, api.KeyRequest{Name: "brief", Scopes: []string{"read:ark:12345"}, Expires: time.Now().Add(3 * time.Second)})
	if got := caddytest.CallSecret(t, s, "GET", "/id/ark:12345/t1", k.Secret, ""); got.Status == http.StatusUnauthorized {
		t.Fatalf("the key before its expiry: %d %s", got.Status, got.Body)
	}
	testkit.WaitFor(t, "the key to expire", func() bool { return time.Now().After(k.Expires) })
	caddytest.ExpectUnknown(t, s, k.Secret, "an expired key")
	got := caddytest.CallSecret(t, s, "GET", "/keys", "boss-secret", "")
	if !strings.Contains(got.Body, `"expired": true`) {
		t.Errorf("GET keys does not say the key expired: %s", got.Body)
	}
}

// A configured key comes first: one added to the configuration under a
// stored key's name hides the stored key, whose secret gets 401.
func TestAPIStoredKeyHiddenByConfiguredName(t *testing.T) {
	s := caddytest.StartKeysSite(t)
	k := caddytest.AddKey(t, s, api.KeyRequest{Name: "later", Scopes: []string{"read:ark:12345"}})
	if got := caddytest.CallSecret(t, s, "GET", "/id/ark:12345/t1", k.Secret, ""); got.Status == http.StatusUnauthorized {
		t.Fatalf("the stored key: %d %s", got.Status, got.Body)
	}
	body := strings.Replace(caddytest.AdminKeys(caddytest.APISiteBody(s.DB, s.Table, "")), "api /api/ark {", "api /api/ark {\n\t\tkey later "+caddytest.KeyHash("later-secret")+" read:ark:12345", 1)
	if err := s.Load(body); err != nil {
		t.Fatal(err)
	}
	caddytest.ExpectUnknown(t, s, k.Secret, "a stored key named as a configured one")
	if got := caddytest.CallSecret(t, s, "GET", "/id/ark:12345/t1", "later-secret", ""); got.Status == http.StatusUnauthorized {
		t.Errorf("the configured key later: %d %s", got.Status, got.Body)
	}
}

// A key made before key names were limited to ASCII letters, digits,
// ".", "_" and "-" is revoked by its name, escaped.
func TestAPIStoredKeyOfAnOldNameRevoked(t *testing.T) {
	s := &caddytest.APISite{DB: t.TempDir() + "/ark.db", Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})}
	caddytest.StoreKeysAsBefore(t, s.DB, store.StoredKey{Name: "odd/100%", Hash: caddytest.KeyHash("odd-secret"), Scopes: []string{"read:ark:12345"}, Created: time.Now().UTC(), CreatedBy: "boss"})
	s.Site = caddytest.StartSite(t, caddytest.AdminKeys(caddytest.APISiteBody(s.DB, s.Table, "")))
	if got := caddytest.CallSecret(t, s, "GET", "/id/ark:12345/t1", "odd-secret", ""); got.Status == http.StatusUnauthorized {
		t.Fatalf("the old key: %d %s", got.Status, got.Body)
	}
	if got := caddytest.CallSecret(t, s, "DELETE", "/keys/odd%2F100%25", "boss-secret", ""); got.Status != http.StatusNoContent {
		t.Errorf("DELETE of a key whose name holds / and %%, escaped: %d %s, want 204", got.Status, got.Body)
	}
	caddytest.ExpectUnknown(t, s, "odd-secret", "the old key, revoked")
}

// A limited admin lists only the keys it may revoke, the keys whose every
// scope its own grant: a wider key is not shown, not even by name (issue
// 36, item 9); revoking it is refused, and it keeps working. An admin
// whose scopes grant them all lists them all.
func TestAPIStoredKeysListedToWhoMayRevokeThem(t *testing.T) {
	s := caddytest.StartKeysSite(t)
	deputy := caddytest.AddKey(t, s, api.KeyRequest{Name: "deputy", Scopes: []string{"admin", "write:ark:12345/x5", "read:ark:12345"}})
	wide := caddytest.AddKey(t, s, api.KeyRequest{Name: "wide", Scopes: []string{"write:ark:12345"}, Label: "the whole NAAN"})
	caddytest.AddKey(t, s, api.KeyRequest{Name: "narrow", Scopes: []string{"write:ark:12345/x5b"}})
	caddytest.AddKey(t, s, api.KeyRequest{Name: "admin2", Scopes: []string{"admin", "read:ark:12345/x5"}})
	names := func(secret string) string {
		t.Helper()
		got := caddytest.CallSecret(t, s, "GET", "/keys", secret, "")
		var keys []api.KeyInfo
		if got.Status != http.StatusOK || json.Unmarshal([]byte(got.Body), &keys) != nil {
			t.Fatalf("GET keys: %d %s", got.Status, got.Body)
		}
		var out []string
		for _, k := range keys {
			out = append(out, k.Name)
		}
		return strings.Join(out, " ")
	}
	if got := names("boss-secret"); got != "admin2 deputy narrow wide" {
		t.Errorf("the admin of the NAAN lists %q", got)
	}
	got := caddytest.CallSecret(t, s, "GET", "/keys", deputy.Secret, "")
	if list := names(deputy.Secret); list != "admin2 deputy narrow" {
		t.Errorf("the deputy lists %q, want admin2 deputy narrow", list)
	}
	if strings.Contains(got.Body, "wide") || strings.Contains(got.Body, "the whole NAAN") {
		t.Errorf("the deputy's list tells of the wider key: %s", got.Body)
	}
	if got := caddytest.CallSecret(t, s, "DELETE", "/keys/wide", deputy.Secret, ""); got.Status != http.StatusForbidden {
		t.Errorf("the deputy revoking the wider key: %d %s, want 403", got.Status, got.Body)
	}
	if got := caddytest.CallSecret(t, s, "GET", "/id/ark:12345/t1", wide.Secret, ""); got.Status == http.StatusUnauthorized {
		t.Errorf("the wider key after the deputy's refusal: %d", got.Status)
	}
	if got := caddytest.CallSecret(t, s, "DELETE", "/keys/narrow", deputy.Secret, ""); got.Status != http.StatusNoContent {
		t.Errorf("the deputy revoking a key it lists: %d %s, want 204", got.Status, got.Body)
	}
}
