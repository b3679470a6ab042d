package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// No path segment that a request creates or extends decodes to something
// starting with ".": not through percent-encoding, not through a template's
// empty placeholder or variant, not through double encoding; in place and
// as a redirect (issue 9, item 7).
func TestRequestSegmentsNeverStartWithDot(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		map ark:12345/o1 /files/
		map ark:12345/u1 https://repo.example.org/files/
		shoulder ark:12345/l4 /files/tmpl/{http.ark.blade}.html
		shoulder ark:12345/e6 /files/{http.ark.blade}{http.ark.suffix}
		shoulder ark:12345/r6 https://repo.example.org/files/{http.ark.blade}{http.ark.suffix}
		shoulder ark:12345/p7 https://repo.example.org/p/{http.ark.blade}
	}
	file_server`)
	for _, p := range []string{
		"/ark:12345/o1/%2Eenv",
		"/ark:12345/o1/%2eenv",
		"/ark:12345/o1/sub/%2Egit/config",
		"/ark:12345/o1/%252e%252e/secret.txt",
		"/ark:12345/o1/%252eenv",
		"/ark:12345/o1/%25252eenv",
		"/ark:12345/u1/%2Eenv",
		"/ark:12345/u1/%252e%252e/x",
		"/ark:12345/l4",
		"/ark:12345/e6.env",
		"/ark:12345/r6.env",
		"/ark:12345/p7%252e%252e",
		"/ark:12345/o1/a%2F.env",
	} {
		got := s.Get(p)
		if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, `would start with "."`) {
			t.Errorf("%s: got %d %q %q, want 400 saying a segment would start with \".\"", p, got.Status, got.Location, got.Body)
		}
	}
	// Dots inside a segment, and segments the operator wrote, still work.
	if got := s.Get("/ark:12345/o1/sub.txt"); got.Status != http.StatusNotFound || !strings.Contains(got.Body, "what it resolves to is missing") {
		t.Errorf("/ark:12345/o1/sub.txt: got %d %q, want the 404 of a missing target", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/r6x.gz"); got.Status != http.StatusFound || got.Location != "https://repo.example.org/files/x.gz" {
		t.Errorf("/ark:12345/r6x.gz: got %d %q", got.Status, got.Location)
	}
}

// A variant of an identifier whose target ends in "/" (a directory, or a
// URL without a path) is not assigned: 404 saying why, not a 400 about
// climbing out (issue 9, item 11).
func TestVariantOfDirectoryTargetIsNotAssigned(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		map ark:12345/testark https://obj.example.com
		map ark:12345/o1 /files/
	}
	file_server`)
	for p, via := range map[string]string{"/ark:12345/testark.en": "ark:12345/testark", "/ark:12345/o1.env": "ark:12345/o1"} {
		got := s.Get(p)
		if got.Status != http.StatusNotFound || !strings.Contains(got.Body, `cannot be appended to the target of `+via+`, which ends in "/"`) {
			t.Errorf("%s: got %d %q", p, got.Status, got.Body)
		}
	}
	s.ExpectRedirects(map[string]string{
		"/ark:12345/testark":       "https://obj.example.com/",
		"/ark:12345/testark/c1.en": "https://obj.example.com/c1.en",
	})
}

// A template expanded with a request header holding a control character,
// or a "%" that starts no escape, is a 400 with a reason: never a 500 and
// never a control character in Location (issue 9, item 8).
func TestTemplateExpansionsAreValidated(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		shoulder ark:12345/h2 /files/{http.request.header.X}
		shoulder ark:12345/r2 https://repo.example.org/{http.request.header.X}
	}
	file_server`)
	for _, value := range []string{"a\tb", "%zz", "a%00b"} {
		for _, p := range []string{"/ark:12345/h2", "/ark:12345/r2"} {
			got := s.Do(http.MethodGet, p, http.Header{"X": {value}})
			if got.Status != http.StatusBadRequest || !strings.HasPrefix(got.Body, "400 Bad Request: ark:12345/") || got.Location != "" {
				t.Errorf("%s with X %q: got %d %q %q, want 400 with a reason", p, value, got.Status, got.Location, got.Body)
			}
		}
	}
	got := s.Do(http.MethodGet, "/ark:12345/r2", http.Header{"X": {"a b\"<é"}})
	if got.Status != http.StatusFound || got.Location != "https://repo.example.org/a%20b%22%3C%C3%A9" {
		t.Errorf("X with space, quote and non-ASCII: got %d %q, want them percent-encoded", got.Status, got.Location)
	}
}
