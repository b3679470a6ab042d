package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// Identifiers, with or without an inflection, are answered for GET and HEAD
// only; other methods get 405 with Allow, and other paths are not touched.
func TestOnlyGetAndHeadAreAnswered(t *testing.T) {
	s := caddytest.StartSite(t, "\tark {\n\t\tmap ark:12345/m1 https://example.org/m1\n\t}\n\trespond \"next\" 200")
	for _, path := range []string{"/ark:12345/m1", "/ark:12345/m1?info", "/ark:12345/m1?", "/ark:12345/unknown", "/urn:nbn:de:1-2"} {
		for _, method := range []string{http.MethodPost, http.MethodDelete, http.MethodPut, "FOO"} {
			a := s.Do(method, path, nil)
			if a.Status != http.StatusMethodNotAllowed || a.Header.Get("Allow") != "GET, HEAD" || !strings.Contains(a.Body, "GET and HEAD only") {
				t.Errorf("%s %s: %d Allow=%q %q; want 405 with Allow: GET, HEAD", method, path, a.Status, a.Header.Get("Allow"), a.Body)
			}
		}
		if a := s.Do(http.MethodHead, path, nil); a.Status == http.StatusMethodNotAllowed {
			t.Errorf("HEAD %s: 405", path)
		}
	}
	if a := s.Get("/ark:12345/m1"); a.Status != http.StatusFound {
		t.Errorf("GET: %d, want 302", a.Status)
	}
	if a := s.Do(http.MethodPost, "/other", nil); a.Status != http.StatusOK || a.Body != "next" {
		t.Errorf("POST /other: %d %q, want the next handler", a.Status, a.Body)
	}
}
