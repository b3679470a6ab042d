package ark

import (
	"net/http"
	"strings"
	"testing"
)

// Identifiers, with or without an inflection, are answered for GET and HEAD
// only; other methods get 405 with Allow, and other paths are not touched.
func TestOnlyGetAndHeadAreAnswered(t *testing.T) {
	s := startSite(t, "\tark {\n\t\tmap ark:12345/m1 https://example.org/m1\n\t}\n\trespond \"next\" 200")
	for _, path := range []string{"/ark:12345/m1", "/ark:12345/m1?info", "/ark:12345/m1?", "/ark:12345/unknown", "/urn:nbn:de:1-2"} {
		for _, method := range []string{http.MethodPost, http.MethodDelete, http.MethodPut, "FOO"} {
			a := s.do(method, path, nil)
			if a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "GET, HEAD" || !strings.Contains(a.body, "GET and HEAD only") {
				t.Errorf("%s %s: %d Allow=%q %q; want 405 with Allow: GET, HEAD", method, path, a.status, a.header.Get("Allow"), a.body)
			}
		}
		if a := s.do(http.MethodHead, path, nil); a.status == http.StatusMethodNotAllowed {
			t.Errorf("HEAD %s: 405", path)
		}
	}
	if a := s.get("/ark:12345/m1"); a.status != http.StatusFound {
		t.Errorf("GET: %d, want 302", a.status)
	}
	if a := s.do(http.MethodPost, "/other", nil); a.status != http.StatusOK || a.body != "next" {
		t.Errorf("POST /other: %d %q, want the next handler", a.status, a.body)
	}
}
