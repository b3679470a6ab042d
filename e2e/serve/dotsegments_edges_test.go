package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// Edges of the segment rule (issue 9, item 7) found in review: each of
// these reached a segment starting with "." before its fix.
func TestRequestSegmentsNeverStartWithDotEdges(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		map ark:12345/f1 https://repo.example.org/files/#top
		map ark:12345/f2 https://repo.example.org/files/x#top
		map ark:12345/o3 https://repo.example.org/files/
		shoulder ark:12345/h2 /files/{http.request.header.X}
		shoulder ark:12345/h3 /files/{http.request.header.X} 302
	}
	file_server`)
	for _, tc := range []struct {
		path  string
		value string // the X header, if any
	}{
		// A URL target with a fragment and no query: the qualifier goes
		// before the fragment, and is checked there too.
		{path: "/ark:12345/f1/%2Eenv"},
		{path: "/ark:12345/f1/%252e%252e/x"},
		{path: "/ark:12345/f2/%2Egit/config"},
		// "://" in request data is not where a local target's path starts.
		{path: "/ark:12345/h2", value: ".env/x://y"},
		{path: "/ark:12345/h3", value: ".git/x://y/config"},
		// A "%" that starts no escape, once decoded, does not stop the
		// next decoding: a lenient decoder reads ".env%zz" from it.
		{path: "/ark:12345/o3/%252eenv%25zz"},
		{path: "/ark:12345/h3", value: "%252eenv%25zz"},
	} {
		got := s.Do(http.MethodGet, tc.path, http.Header{"X": {tc.value}})
		if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, `would start with "."`) || got.Location != "" {
			t.Errorf("%s with X %q: got %d Location %q %q, want 400 saying a segment would start with \".\"", tc.path, tc.value, got.Status, got.Location, got.Body)
		}
	}
	if got := s.Get("/ark:12345/f1.env"); got.Status != http.StatusNotFound || got.Location != "" {
		t.Errorf("/ark:12345/f1.env: got %d Location %q %q, want 404: a variant after a target ending in /", got.Status, got.Location, got.Body)
	}
	s.ExpectRedirects(map[string]string{
		"/ark:12345/f1/c2.en":     "https://repo.example.org/files/c2.en#top",
		"/ark:12345/f2.en":        "https://repo.example.org/files/x.en#top",
		"/ark:12345/o3/a%25zz.en": "https://repo.example.org/files/a%25zz.en",
	})
}

// A template that appends the qualifier to a target ending in "/" treats a
// variant as a table entry does (issue 9, item 11): not assigned, 404
// saying why, not a 400.
func TestVariantOfDirectoryTemplateIsNotAssigned(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		shoulder ark:12345/v6 /files/
		shoulder ark:12345/t3 https://obj.example.com
		shoulder ark:12345/w4 https://obj.example.com/w/{http.ark.blade}
	}
	file_server`)
	for p, via := range map[string]string{"/ark:12345/v6.env": "ark:12345/v6", "/ark:12345/t3x.en": "ark:12345/t3"} {
		got := s.Get(p)
		if got.Status != http.StatusNotFound || !strings.Contains(got.Body, `cannot be appended to the target of `+via+`, which ends in "/"`) {
			t.Errorf("%s: got %d %q", p, got.Status, got.Body)
		}
	}
	s.ExpectRedirects(map[string]string{
		"/ark:12345/t3x/c1.en": "https://obj.example.com/c1.en",
		"/ark:12345/w4x.en":    "https://obj.example.com/w/x.en",
	})
}
