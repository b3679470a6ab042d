package ezid

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestEZIDMint runs "Operation: mint identifier" on bbolt.
func TestEZIDMint(t *testing.T) {
	testMint(t, startEZIDSite(t, boltStore(t), "", ""))
}

// minted is the status line of a mint under ark:/12345/x5.
var minted = regexp.MustCompile(`^success: (ark:/12345/x5[0-9a-z]+)$`)

// testMint mints as the API document's examples do: with metadata, with
// "${identifier}" in the target, reserved, and with no body at all.
func testMint(t *testing.T, s *ezidSite) {
	a := s.call("POST", "/shoulder/ark:/12345/x5", "_target: https://example.org/objects/${identifier}\nerc.what: a test\n", "basic", alice)
	s.expect(a, http.StatusCreated, a.Body)
	m := minted.FindStringSubmatch(a.Body)
	if m == nil {
		t.Fatalf("mint: %q", a.Body)
	}
	id := m[1]
	key := strings.Replace(id, "ark:/", "ark:", 1)
	s.ExpectRedirects(map[string]string{"/" + key: "https://example.org/objects/" + id})
	got := s.expect(s.call("GET", "/id/"+id, ""), http.StatusOK, "success: "+id)
	if got["erc.what"] != "a test" || got["_owner"] != "alice" || got["_status"] != "public" {
		t.Errorf("minted: %v", got)
	}

	// Reserved, then public.
	a = s.call("POST", "/shoulder/ark:/12345/x5", "_status: reserved\n_target: https://example.org/later\n", "basic", alice)
	s.expect(a, http.StatusCreated, a.Body)
	r := minted.FindStringSubmatch(a.Body)
	if r == nil || r[1] == id {
		t.Fatalf("second mint: %q", a.Body)
	}
	if a := s.Get("/" + strings.Replace(r[1], "ark:/", "ark:", 1)); a.Status != http.StatusNotFound {
		t.Errorf("a reserved mint resolves: %d", a.Status)
	}
	s.expect(s.call("POST", "/id/"+r[1], "_status: public\n", "basic", alice), http.StatusOK, "success: "+r[1])
	s.ExpectRedirects(map[string]string{"/" + strings.Replace(r[1], "ark:/", "ark:", 1): "https://example.org/later"})

	// No body, as curl -X POST sends it: the default target.
	a = s.call("POST", "/shoulder/ark:/12345/x5", "", "basic", alice)
	s.expect(a, http.StatusCreated, a.Body)
	if minted.FindStringSubmatch(a.Body) == nil {
		t.Fatalf("mint without a body: %q", a.Body)
	}

	// Refusals, which mint nothing.
	s.expect(s.call("POST", "/shoulder/ark:/12345/y7", "", "basic", alice), http.StatusForbidden, "error: forbidden")
	s.expect(s.call("POST", "/shoulder/ark:/12345/x5", ""), http.StatusUnauthorized, "error: unauthorized")
	s.expect(s.call("POST", "/shoulder/ark:/12345/z9", "", "basic", "admin-person:x"), http.StatusUnauthorized, "error: unauthorized")
	s.expect(s.call("POST", "/shoulder/doi:10.5072/FK2", "", "basic", alice), http.StatusBadRequest, "error: bad request - no such shoulder")
	s.expect(s.call("POST", "/shoulder/ark:/12345/x5", "_status: unavailable\n", "basic", alice), http.StatusBadRequest,
		"error: bad request - _status: invalid identifier status change")
	s.expect(s.call("GET", "/shoulder/ark:/12345/x5", "", "basic", alice), http.StatusMethodNotAllowed, "error: method not allowed")
	if n := strings.Count(s.native("GET", "/ids?prefix=ark:12345/x5", "").Body, "ark:12345/x5"); n != 3 {
		t.Errorf("%d names under x5 after three mints and refusals", n)
	}
}

// TestEZIDMintUnknownShoulder: a shoulder with no minter is EZID's "no
// such shoulder".
func TestEZIDMintUnknownShoulder(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	s.expect(s.call("POST", "/shoulder/ark:/12345/x5zz", "", "basic", alice), http.StatusBadRequest, "error: bad request - no such shoulder")
}
