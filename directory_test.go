package ark

import (
	"net/http"
	"strings"
	"testing"
)

// An identifier served in place from a directory, requested without a
// trailing "/", is redirected (temporarily) to its normal form with one,
// whatever its name, so the index page's relative links work (issue 10,
// item 2).
func TestDirectoryTargetRedirectsToTrailingSlash(t *testing.T) {
	s := startSite(t, `
	root * `+testRoot(t)+`
	ark {
		map ark:12345/zz9 /objects/b2c4d6/
	}
	file_server`)
	for p, want := range map[string]string{
		"/ark:12345/zz9":       "/ark:12345/zz9/",
		"/ark:/12345/z-z9":     "/ark:12345/zz9/",
		"/ark:12345/zz9?x=1&y": "/ark:12345/zz9/?x=1&y",
	} {
		if got := s.get(p); got.status != http.StatusFound || got.location != s.base+want {
			t.Errorf("%s: got %d %q, want 302 %q", p, got.status, got.location, want)
		}
	}
	index := s.get("/ark:12345/zz9/")
	if index.status != http.StatusOK || index.body != readFile(t, "testdata/site/objects/b2c4d6/index.html") {
		t.Fatalf("/ark:12345/zz9/: got %d %q, want the index page", index.status, index.body)
	}
	// The index page's relative link, resolved as a browser would.
	if !strings.Contains(index.body, `href="l1.html"`) {
		t.Fatalf("the test page has no relative link: %q", index.body)
	}
	if got := s.get("/ark:12345/zz9/l1.html"); got.status != http.StatusOK || got.body != readFile(t, "testdata/site/objects/b2c4d6/l1.html") {
		t.Errorf("relative link l1.html: got %d %q", got.status, got.body)
	}
	if got := s.get("/ark:12345/zz9?info"); got.status != http.StatusOK || got.location != "" {
		t.Errorf("?info: got %d %q, want the metadata", got.status, got.location)
	}
}

// A URN mapped to a directory is served its index in place, q-component
// or not: no redirect to a spelling with "/", which would be another URN.
func TestURNDirectoryTargetIsServed(t *testing.T) {
	s := startSite(t, `
	root * `+testRoot(t)+`
	ark {
		map urn:example:dir /objects/b2c4d6/
	}
	file_server`)
	want := readFile(t, "testdata/site/objects/b2c4d6/index.html")
	for _, p := range []string{"/urn:example:dir", "/URN:example:dir?=a=1"} {
		if got := s.get(p); got.status != http.StatusOK || got.body != want {
			t.Errorf("%s: got %d %q %q, want the index page", p, got.status, got.location, got.body)
		}
	}
}
