package caddytest

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// AdminKeys adds to an APISite's keys "boss" (secret "boss-secret"), an
// admin that may write ark:12345.
func AdminKeys(body string) string {
	return strings.Replace(body, "api /api/ark {", "api /api/ark {\n\t\tkey boss "+KeyHash("boss-secret")+" admin write:ark:12345", 1)
}

// StartKeysSite starts an APISite with the admin key boss.
func StartKeysSite(t *testing.T) *APISite {
	t.Helper()
	s := &APISite{
		DB:    filepath.Join(t.TempDir(), "ark.db"),
		Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	s.Site = StartSite(t, AdminKeys(APISiteBody(s.DB, s.Table, "")))
	return s
}

// CallSecret sends an API request to node with the bearer secret (none
// when "").
func CallSecret(t *testing.T, node *APISite, method, path, secret, body string) Answer {
	t.Helper()
	req, err := http.NewRequest(method, node.Base+"/api/ark"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	resp, err := Client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Answer{Status: resp.StatusCode, Body: string(data), Header: resp.Header}
}

// AddKey makes a key through node's API with boss, and returns its
// secret.
func AddKey(t *testing.T, node *APISite, req api.KeyRequest) api.NewKey {
	t.Helper()
	body, _ := json.Marshal(req)
	got := CallSecret(t, node, "POST", "/keys", "boss-secret", string(body))
	if got.Status != http.StatusCreated {
		t.Fatalf("POST keys %s: %d %s", body, got.Status, got.Body)
	}
	var k api.NewKey
	if err := json.Unmarshal([]byte(got.Body), &k); err != nil || k.Secret == "" || k.Name != req.Name {
		t.Fatalf("POST keys: %v: %s", err, got.Body)
	}
	return k
}

// ExpectUnknown checks that secret gets 401 on node, as an unknown key.
func ExpectUnknown(t *testing.T, node *APISite, secret, why string) {
	t.Helper()
	got := CallSecret(t, node, "GET", "/id/ark:12345/x5k1", secret, "")
	if got.Status != http.StatusUnauthorized || !strings.Contains(got.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("%s: GET with it: %d %s (WWW-Authenticate %q), want 401 invalid_token", why, got.Status, got.Body, got.Header.Get("WWW-Authenticate"))
	}
}
