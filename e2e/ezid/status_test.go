package ezid

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// TestEZIDStatus runs "Identifier status" and "Operation: delete
// identifier" on bbolt.
func TestEZIDStatus(t *testing.T) {
	testStatus(t, startEZIDSite(t, boltStore(t), "", ""))
}

// testStatus follows EZID's status transitions, and what each status is
// on the site's other paths: resolution, ?info, OAI-PMH.
func testStatus(t *testing.T, s *ezidSite) {
	// Reserved: target and metadata kept, not resolvable, not harvested,
	// not shown to anyone not signed in.
	s.expect(s.call("PUT", "/id/ark:/12345/x5r", "_status: reserved\n_target: https://example.org/r\ndc.title: Reserved title\n", "basic", alice),
		http.StatusCreated, "success: ark:/12345/x5r")
	if a := s.Get("/ark:12345/x5r"); a.Status != http.StatusNotFound {
		t.Errorf("a reserved identifier resolves: %d %q", a.Status, a.Location)
	}
	if a := s.Get("/ark:12345/x5r?info"); strings.Contains(a.Body, "Reserved title") {
		t.Errorf("?info shows a reserved identifier's metadata: %q", a.Body)
	}
	if a := s.Get("/oai?verb=GetRecord&metadataPrefix=oai_dc&identifier=ark:12345/x5r"); !strings.Contains(a.Body, "idDoesNotExist") {
		t.Errorf("OAI-PMH has a reserved identifier: %q", a.Body)
	}
	s.expect(s.call("GET", "/id/ark:/12345/x5r", ""), http.StatusUnauthorized, "error: unauthorized")
	s.expect(s.call("GET", "/id/ark:/12345/x5r", "", "basic", bob), http.StatusForbidden, "error: forbidden")
	m := s.expect(s.call("GET", "/id/ark:/12345/x5r", "", "basic", alice), http.StatusOK, "success: ark:/12345/x5r")
	if m["_status"] != "reserved" || m["_target"] != "https://example.org/r" || m["dc.title"] != "Reserved title" {
		t.Errorf("reserved: %v", m)
	}
	// Reserved to public: it resolves, with the target it kept.
	s.expect(s.call("PUT", "/id/ark:/12345/x5q", "_status: reserved\n_target: https://example.org/q\ndc.title: Q\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5q")
	s.expect(s.call("POST", "/id/ark:/12345/x5q", "_status: public\n", "basic", alice), http.StatusOK, "success: ark:/12345/x5q")
	s.ExpectRedirects(map[string]string{"/ark:12345/x5q": "https://example.org/q"})
	s.expect(s.call("POST", "/id/ark:/12345/x5q", "_status: reserved\n", "basic", alice), http.StatusBadRequest,
		"error: bad request - _status: invalid identifier status change")
	s.expect(s.call("DELETE", "/id/ark:/12345/x5q", "", "basic", alice), http.StatusBadRequest,
		"error: bad request - identifier status does not support deletion")

	// Public to unavailable: the tombstone, with the reason, everywhere.
	s.expect(s.call("POST", "/id/ark:/12345/x5q", "_status: unavailable | withdrawn by author\n", "basic", alice), http.StatusOK, "success: ark:/12345/x5q")
	if a := s.Get("/ark:12345/x5q"); a.Status != http.StatusGone {
		t.Errorf("unavailable: %d %q", a.Status, a.Body)
	}
	if a := s.Get("/ark:12345/x5q?info"); !strings.Contains(a.Body, "withdrawn by author") {
		t.Errorf("?info of an unavailable identifier: %q", a.Body)
	}
	if a := s.Get("/oai?verb=GetRecord&metadataPrefix=oai_dc&identifier=ark:12345/x5q"); !strings.Contains(a.Body, `status="deleted"`) {
		t.Errorf("OAI-PMH of an unavailable identifier: %q", a.Body)
	}
	m = s.expect(s.call("GET", "/id/ark:/12345/x5q", ""), http.StatusOK, "success: ark:/12345/x5q")
	if m["_status"] != "unavailable | withdrawn by author" || m["_target"] != "https://example.org/q" {
		t.Errorf("unavailable: %v", m)
	}
	// The console says what it answers, as the resolver does.
	if a := s.Do("GET", "/api/ark/ui/id/ark:12345/x5q", http.Header{"Authorization": {basicHeader(alice)}}); !strings.Contains(a.Body, "unavailable (410, EZID&#39;s _status; the target is kept): withdrawn by author") {
		t.Errorf("the console's page of an unavailable identifier: %d %s", a.Status, a.Body)
	}
	// An update that does not name _status keeps it.
	s.expect(s.call("POST", "/id/ark:/12345/x5q", "dc.title: Q2\n", "basic", alice), http.StatusOK, "success: ark:/12345/x5q")
	if a := s.Get("/ark:12345/x5q"); a.Status != http.StatusGone {
		t.Errorf("an update revived it: %d", a.Status)
	}
	// Back to public, as EZID allows.
	s.expect(s.call("POST", "/id/ark:/12345/x5q", "_status: public\n", "basic", alice), http.StatusOK, "success: ark:/12345/x5q")
	s.ExpectRedirects(map[string]string{"/ark:12345/x5q": "https://example.org/q"})
	if a := s.Get("/oai?verb=GetRecord&metadataPrefix=oai_dc&identifier=ark:12345/x5q"); strings.Contains(a.Body, `status="deleted"`) || !strings.Contains(a.Body, "Q2") {
		t.Errorf("OAI-PMH of an identifier public again: %q", a.Body)
	}
	s.expect(s.call("PUT", "/id/ark:/12345/x5u", "_status: unavailable\n", "basic", alice), http.StatusBadRequest,
		"error: bad request - _status: invalid identifier status change")
	s.expect(s.call("POST", "/id/ark:/12345/x5q", "_status: gone\n", "basic", alice), http.StatusBadRequest,
		"error: bad request - _status: invalid identifier status")

	// _export: no keeps it out of OAI-PMH, and yes brings it back. OAI-PMH
	// lists what is a second old: x5e, written with it, shows when.
	s.expect(s.call("POST", "/id/ark:/12345/x5q", "_export: no\n", "basic", alice), http.StatusOK, "success: ark:/12345/x5q")
	s.expect(s.call("PUT", "/id/ark:/12345/x5e", "_target: https://example.org/e\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5e")
	list := func() string { return s.Get("/oai?verb=ListIdentifiers&metadataPrefix=oai_dc").Body }
	testkit.WaitFor(t, "OAI-PMH to list x5e", func() bool { return strings.Contains(list(), "ark:12345/x5e") })
	if l := list(); strings.Contains(l, "x5q") {
		t.Errorf("OAI-PMH lists an identifier with _export no: %q", l)
	}
	if a := s.Get("/oai?verb=GetRecord&metadataPrefix=oai_dc&identifier=ark:12345/x5q"); !strings.Contains(a.Body, "idDoesNotExist") {
		t.Errorf("OAI-PMH has an identifier with _export no: %q", a.Body)
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/x5q": "https://example.org/q"})
	s.expect(s.call("POST", "/id/ark:/12345/x5q", "_export: yes\n", "basic", alice), http.StatusOK, "success: ark:/12345/x5q")
	testkit.WaitFor(t, "OAI-PMH to list x5q again", func() bool { return strings.Contains(list(), "ark:12345/x5q") })

	// Delete a reserved identifier: gone for EZID's API, never assigned
	// again.
	s.expect(s.call("PUT", "/id/ark:/12345/x5d", "_status: reserved\ndc.title: D\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5d")
	s.expect(s.call("DELETE", "/id/ark:/12345/x5d", "", "basic", bob), http.StatusForbidden, "error: forbidden")
	s.expect(s.call("DELETE", "/id/ark:/12345/x5d", "", "basic", alice), http.StatusOK, "success: ark:/12345/x5d")
	s.expect(s.call("GET", "/id/ark:/12345/x5d", "", "basic", alice), http.StatusBadRequest, "error: bad request - no such identifier")
	s.expect(s.call("DELETE", "/id/ark:/12345/x5d", "", "basic", alice), http.StatusBadRequest, "error: bad request - no such identifier")
	s.expect(s.call("PUT", "/id/ark:/12345/x5d?update_if_exists=yes", "_target: https://example.org/d\n", "basic", alice), http.StatusBadRequest,
		"error: bad request - identifier deleted: its name is never assigned again")
	if a := s.Get("/ark:12345/x5d"); a.Status != http.StatusNotFound {
		t.Errorf("a deleted identifier: %d", a.Status)
	}

	// A withdrawal through the native API is final: EZID's API shows it
	// unavailable and cannot revive it.
	s.expect(s.call("PUT", "/id/ark:/12345/x5w", "_target: https://example.org/w\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5w")
	if a := s.native("POST", "/withdraw/ark:12345/x5w", `{"reason": "rights withdrawn"}`); a.Status != http.StatusOK {
		t.Fatalf("withdraw: %d %s", a.Status, a.Body)
	}
	m = s.expect(s.call("GET", "/id/ark:/12345/x5w", ""), http.StatusOK, "success: ark:/12345/x5w")
	if m["_status"] != "unavailable | rights withdrawn" {
		t.Errorf("a withdrawal: %v", m)
	}
	for _, body := range []string{"_status: public\n", "dc.title: T\n"} {
		s.expect(s.call("POST", "/id/ark:/12345/x5w", body, "basic", alice), http.StatusBadRequest,
			"error: bad request - identifier withdrawn for good: it cannot change")
	}
	s.expect(s.call("DELETE", "/id/ark:/12345/x5w", "", "basic", alice), http.StatusBadRequest,
		"error: bad request - identifier status does not support deletion")
}

// TestEZIDReservedPatchedNatively: a native PATCH binds a name reserved
// through EZID's API, as it binds any minted name, keeping the target and
// metadata it was reserved with rather than dropping them; a deleted
// name's mark goes.
func TestEZIDReservedPatchedNatively(t *testing.T) {
	s := startEZIDSite(t, boltStore(t), "", "")
	s.expect(s.call("PUT", "/id/ark:/12345/x5k", "_status: reserved\n_target: https://example.org/k\ndc.title: Kept\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5k")
	if a := s.native("PATCH", "/id/ark:12345/x5k", `{"meta": {"dc.creator": "Curie, Marie"}}`); a.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", a.Status, a.Body)
	}
	m := s.expect(s.call("GET", "/id/ark:/12345/x5k", ""), http.StatusOK, "success: ark:/12345/x5k")
	if m["_status"] != "public" || m["dc.title"] != "Kept" || m["dc.creator"] != "Curie, Marie" || m["_target"] != "https://example.org/k" || m["_owner"] != "alice" {
		t.Errorf("after a native PATCH: %v", m)
	}
	s.ExpectRedirects(map[string]string{"/ark:12345/x5k": "https://example.org/k"})

	s.expect(s.call("PUT", "/id/ark:/12345/x5g", "_status: reserved\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5g")
	s.expect(s.call("DELETE", "/id/ark:/12345/x5g", "", "basic", alice), http.StatusOK, "success: ark:/12345/x5g")
	if a := s.native("PATCH", "/id/ark:12345/x5g", `{"target": "https://example.org/g"}`); a.Status != http.StatusOK || strings.Contains(a.Body, "_deleted") {
		t.Fatalf("PATCH of a deleted name: %d %s", a.Status, a.Body)
	}
}
