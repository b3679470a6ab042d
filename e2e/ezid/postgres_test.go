package ezid

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// TestEZIDOnPostgres runs the operations, the status transitions and
// minting on the PostgreSQL store, in a real throwaway cluster.
func TestEZIDOnPostgres(t *testing.T) {
	pg := "store postgres " + testkit.SharedPostgres(t).CreateDB(t)
	t.Run("operations", func(t *testing.T) { testOperations(t, startEZIDSite(t, pg, "")) })
	pg = "store postgres " + testkit.SharedPostgres(t).CreateDB(t)
	t.Run("status", func(t *testing.T) { testStatus(t, startEZIDSite(t, pg, "")) })
	pg = "store postgres " + testkit.SharedPostgres(t).CreateDB(t)
	t.Run("mint", func(t *testing.T) { testMint(t, startEZIDSite(t, pg, "")) })
}

// TestEZIDTwoNodes: two Caddy processes on one PostgreSQL database, this
// one and the caddy binary. What EZID's API writes on one, the other's
// EZID API, resolver and OAI-PMH answer: unavailable, public again and
// reserved alike.
func TestEZIDTwoNodes(t *testing.T) {
	pg := "store postgres " + testkit.SharedPostgres(t).CreateDB(t)
	a := startEZIDSite(t, pg, "")
	b := &ezidSite{path: "", table: a.table}
	b.Site = caddytest.StartNode(t, siteBody(t, pg, a.table, ""), a.table).Site

	a.expect(a.call("PUT", "/id/ark:/12345/x5n", "_target: https://example.org/n\nerc.who: A\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5n")
	m := b.expect(b.call("GET", "/id/ark:/12345/x5n", ""), http.StatusOK, "success: ark:/12345/x5n")
	if m["erc.who"] != "A" || m["_owner"] != "alice" {
		t.Errorf("b reads %v", m)
	}
	// b caches a's answer first, then a's change reaches it.
	b.ExpectRedirects(map[string]string{"/ark:12345/x5n": "https://example.org/n"})
	a.expect(a.call("POST", "/id/ark:/12345/x5n", "_status: unavailable | moved\n", "basic", alice), http.StatusOK, "success: ark:/12345/x5n")
	testkit.WaitFor(t, "b to answer the tombstone", func() bool { return b.Get("/ark:12345/x5n").Status == http.StatusGone })
	b.expect(b.call("POST", "/id/ark:/12345/x5n", "_status: public\n", "basic", alice), http.StatusOK, "success: ark:/12345/x5n")
	testkit.WaitFor(t, "a to resolve it again", func() bool { return a.Get("/ark:12345/x5n").Location == "https://example.org/n" })

	// Mints on both never give a name twice, and each names the other's
	// as taken.
	seen := map[string]bool{}
	for i := 0; i < 10; i++ {
		for _, s := range []*ezidSite{a, b} {
			got := s.call("POST", "/shoulder/ark:/12345/x5", "_status: reserved\n", "basic", alice)
			id, ok := strings.CutPrefix(got.Body, "success: ")
			if got.Status != http.StatusCreated || !ok || seen[id] {
				t.Fatalf("mint %d: %d %q (seen: %v)", i, got.Status, got.Body, seen[id])
			}
			seen[id] = true
		}
	}
	// A session is the node's own: b does not know a's cookie.
	cookie, _, _ := strings.Cut(a.call("GET", "/login", "", "basic", alice).Header.Get("Set-Cookie"), ";")
	a.expect(a.call("POST", "/id/ark:/12345/x5n", "erc.what: W\n", "Cookie", cookie), http.StatusOK, "success: ark:/12345/x5n")
	b.expect(b.call("POST", "/id/ark:/12345/x5n", "erc.what: W\n", "Cookie", cookie), http.StatusUnauthorized, "error: unauthorized")
}
