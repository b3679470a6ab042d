package metadata

import (
	"net/http"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// The Link header of a store ARK, kept per identifier, follows its
// metadata: a PATCH of its licence or a withdrawal is in the very next
// caddytest.Answer, after the header was cached.
func TestSignpostingFollowsStoreChanges(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	const id = "ark:12345/x5sig"
	if got := s.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/sig", "meta": {"license": "CC0-1.0"}}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", got.Status, got.Body)
	}
	license := func() string {
		l := withRel(parsedLinks(t, s.Get("/"+id)), "license")
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
	if got := s.Call("PATCH", "/id/"+id, "editor", `{"meta": {"license": "CC-BY-4.0"}}`, "Content-Type", "application/merge-patch+json"); got.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", got.Status, got.Body)
	}
	if got := license(); got != "https://spdx.org/licenses/CC-BY-4.0" {
		t.Errorf("after the PATCH: license %q", got)
	}
	if got := s.Call("PATCH", "/id/"+id, "editor", `{"meta": {"successor": "ark:12345/x5new"}}`, "Content-Type", "application/merge-patch+json"); got.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", got.Status, got.Body)
	}
	if got := s.Call("POST", "/withdraw/"+id, "editor", `{"reason": "Replaced"}`); got.Status != http.StatusOK {
		t.Fatalf("withdrawing: %d %s", got.Status, got.Body)
	}
	got := s.Get("/" + id)
	links := parsedLinks(t, got)
	if succ := withRel(links, "successor-version"); got.Status != 410 || len(succ) != 1 || succ[0].Target != s.Base+"/ark:12345/x5new" {
		t.Errorf("after withdrawal: %d, successor %v", got.Status, succ)
	}
	if len(withRel(links, "cite-as")) != 1 {
		t.Errorf("the tombstone lost its cite-as: %v", links)
	}
}

// A non-ASCII ARK and non-ASCII metadata give ASCII links: the canonical
// URL percent-encoded, as the normal form is, and a linkset that parses.
func TestSignpostingOfNonASCII(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		map ark:12345/données /objects/x5wf6789.html {
			who "Dupont, Élise"
			what "Données"
			license https://example.org/licences/ç
		}
	}
	file_server`)
	for _, path := range []string{"/ark:12345/donn%C3%A9es", "/ark:12345/données"} {
		links := parsedLinks(t, s.Get(path))
		if c := withRel(links, "cite-as"); len(c) != 1 || c[0].Target != s.Base+"/ark:12345/donn%C3%A9es" {
			t.Errorf("%s: cite-as %v", path, c)
		}
		if l := withRel(links, "license"); len(l) != 1 || l[0].Target != "https://example.org/licences/%C3%A7" {
			t.Errorf("%s: license %v", path, l)
		}
	}
	got := s.Get("/ark:12345/donn%C3%A9es?info=linkset")
	if _, err := testkit.ParseLinkHeader([]string{got.Body}, true); got.Status != 200 || err != nil {
		t.Errorf("linkset: %d %v\n%s", got.Status, err, got.Body)
	}
}
