package ark

import (
	"net/http"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// The Link header of a store ARK, kept per identifier, follows its
// metadata: a PATCH of its licence or a withdrawal is in the very next
// answer, after the header was cached.
func TestSignpostingFollowsStoreChanges(t *testing.T) {
	s := startAPISite(t, "")
	const id = "ark:12345/x5sig"
	if got := s.call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/sig", "meta": {"license": "CC0-1.0"}}`); got.status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.status, got.body)
	}
	license := func() string {
		l := withRel(parsedLinks(t, s.get("/"+id)), "license")
		if len(l) != 1 {
			return ""
		}
		return l[0].Target
	}
	for range 3 { // cached by now
		if got := license(); got != "https://spdx.org/licenses/CC0-1.0" {
			t.Fatalf("license %q", got)
		}
	}
	if got := s.call("PATCH", "/id/"+id, "editor", `{"meta": {"license": "CC-BY-4.0"}}`, "Content-Type", "application/merge-patch+json"); got.status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", got.status, got.body)
	}
	if got := license(); got != "https://spdx.org/licenses/CC-BY-4.0" {
		t.Errorf("after the PATCH: license %q", got)
	}
	if got := s.call("PATCH", "/id/"+id, "editor", `{"meta": {"successor": "ark:12345/x5new"}}`, "Content-Type", "application/merge-patch+json"); got.status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", got.status, got.body)
	}
	if got := s.call("POST", "/withdraw/"+id, "editor", `{"reason": "Replaced"}`); got.status != http.StatusOK {
		t.Fatalf("withdrawing: %d %s", got.status, got.body)
	}
	got := s.get("/" + id)
	links := parsedLinks(t, got)
	if succ := withRel(links, "successor-version"); got.status != 410 || len(succ) != 1 || succ[0].Target != s.base+"/ark:12345/x5new" {
		t.Errorf("after withdrawal: %d, successor %v", got.status, succ)
	}
	if len(withRel(links, "cite-as")) != 1 {
		t.Errorf("the tombstone lost its cite-as: %v", links)
	}
}

// A non-ASCII ARK and non-ASCII metadata give ASCII links: the canonical
// URL percent-encoded, as the normal form is, and a linkset that parses.
func TestSignpostingOfNonASCII(t *testing.T) {
	s := startSite(t, `
	root * `+testRoot(t)+`
	ark {
		map ark:12345/données /objects/x5wf6789.html {
			who "Dupont, Élise"
			what "Données"
			license https://example.org/licences/ç
		}
	}
	file_server`)
	for _, path := range []string{"/ark:12345/donn%C3%A9es", "/ark:12345/données"} {
		links := parsedLinks(t, s.get(path))
		if c := withRel(links, "cite-as"); len(c) != 1 || c[0].Target != s.base+"/ark:12345/donn%C3%A9es" {
			t.Errorf("%s: cite-as %v", path, c)
		}
		if l := withRel(links, "license"); len(l) != 1 || l[0].Target != "https://example.org/licences/%C3%A7" {
			t.Errorf("%s: license %v", path, l)
		}
	}
	got := s.get("/ark:12345/donn%C3%A9es?info=linkset")
	if _, err := testkit.ParseLinkHeader([]string{got.body}, true); got.status != 200 || err != nil {
		t.Errorf("linkset: %d %v\n%s", got.status, err, got.body)
	}
}
