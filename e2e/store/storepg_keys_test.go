package store

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// A key made on one node of a PostgreSQL store works on the other at
// once, and its revoke on one holds on the other's very next request, as
// an expiry holds on both: no reload, no waiting.
func TestPostgresTwoNodesStoredKeys(t *testing.T) {
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	body := caddytest.AdminKeys(caddytest.PGSiteBody(dsn, tablePath))
	a := &caddytest.APISite{Site: caddytest.StartSite(t, body), Table: tablePath}
	b := caddytest.StartNode(t, body, tablePath)

	k := caddytest.AddKey(t, a, api.KeyRequest{Name: "vendor", Scopes: []string{"write:ark:12345/x5"}, Label: "the digitisation vendor"})
	if got := caddytest.CallSecret(t, b, "PUT", "/id/ark:12345/x5v1", k.Secret, `{"target": "https://vendor.example.org/v1"}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT on node B with the key made on node A: %d %s", got.Status, got.Body)
	}
	if r := a.Lookup("ark:12345/x5v1"); r == nil || r.Binding.By != "vendor" {
		t.Errorf("node A sees the binding's writer as %+v, want vendor", r)
	}
	if got := caddytest.CallSecret(t, b, "GET", "/keys", "boss-secret", ""); got.Status != http.StatusOK || !strings.Contains(got.Body, `"name": "vendor"`) {
		t.Errorf("GET keys on node B: %d %s", got.Status, got.Body)
	}
	// Both nodes have used the key; node B revokes it, node A refuses it
	// on its next request.
	if got := caddytest.CallSecret(t, a, "GET", "/id/ark:12345/x5v1", k.Secret, ""); got.Status != http.StatusOK {
		t.Fatalf("GET on node A with the key: %d %s", got.Status, got.Body)
	}
	if got := caddytest.CallSecret(t, b, "DELETE", "/keys/vendor", "boss-secret", ""); got.Status != http.StatusNoContent {
		t.Fatalf("DELETE keys/vendor on node B: %d %s", got.Status, got.Body)
	}
	caddytest.ExpectUnknown(t, a, k.Secret, "node A, after node B revoked the key")
	caddytest.ExpectUnknown(t, b, k.Secret, "node B, after revoking the key")

	brief := caddytest.AddKey(t, b, api.KeyRequest{Name: "brief", Scopes: []string{"read:ark:12345"}, Expires: time.Now().Add(3 * time.Second)})
	if got := caddytest.CallSecret(t, a, "GET", "/id/ark:12345/x5v1", brief.Secret, ""); got.Status != http.StatusOK {
		t.Fatalf("GET on node A with the key made on node B: %d %s", got.Status, got.Body)
	}
	testkit.WaitFor(t, "the key to expire", func() bool { return time.Now().After(brief.Expires) })
	caddytest.ExpectUnknown(t, a, brief.Secret, "node A, an expired key")
	caddytest.ExpectUnknown(t, b, brief.Secret, "node B, an expired key")
}
