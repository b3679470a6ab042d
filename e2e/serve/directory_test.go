package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// An identifier served in place from a directory, requested without a
// trailing "/", is redirected (temporarily) to its normal form with one,
// whatever its name, so the index page's relative links work (issue 10,
// item 2).
func TestDirectoryTargetRedirectsToTrailingSlash(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		map ark:12345/zz9 /objects/b2c4d6/
	}
	file_server`)
	for p, want := range map[string]string{
		"/ark:12345/zz9":       "/ark:12345/zz9/",
		"/ark:/12345/z-z9":     "/ark:12345/zz9/",
		"/ark:12345/zz9?x=1&y": "/ark:12345/zz9/?x=1&y",
	} {
		if got := s.Get(p); got.Status != http.StatusFound || got.Location != s.Base+want {
			t.Errorf("%s: got %d %q, want 302 %q", p, got.Status, got.Location, want)
		}
	}
	index := s.Get("/ark:12345/zz9/")
	if index.Status != http.StatusOK || index.Body != testkit.ReadFile(t, "testdata/site/objects/b2c4d6/index.html") {
		t.Fatalf("/ark:12345/zz9/: got %d %q, want the index page", index.Status, index.Body)
	}
	// The index page's relative link, resolved as a browser would.
	if !strings.Contains(index.Body, `href="l1.html"`) {
		t.Fatalf("the test page has no relative link: %q", index.Body)
	}
	if got := s.Get("/ark:12345/zz9/l1.html"); got.Status != http.StatusOK || got.Body != testkit.ReadFile(t, "testdata/site/objects/b2c4d6/l1.html") {
		t.Errorf("relative link l1.html: got %d %q", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/zz9?info"); got.Status != http.StatusOK || got.Location != "" {
		t.Errorf("?info: got %d %q, want the metadata", got.Status, got.Location)
	}
}

// A URN mapped to a directory is served its index in place, q-component
// or not: no redirect to a spelling with "/", which would be another URN.
func TestURNDirectoryTargetIsServed(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		map urn:example:dir /objects/b2c4d6/
	}
	file_server`)
	want := testkit.ReadFile(t, "testdata/site/objects/b2c4d6/index.html")
	for _, p := range []string{"/urn:example:dir", "/URN:example:dir?=a=1"} {
		if got := s.Get(p); got.Status != http.StatusOK || got.Body != want {
			t.Errorf("%s: got %d %q %q, want the index page", p, got.Status, got.Location, got.Body)
		}
	}
}
