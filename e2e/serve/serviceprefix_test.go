package serve

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddyserver/caddy/v2"
)

// When routing rewrites away a part of the path that the client chose
// (here a regular expression that keeps what starts at "/ark:"), the
// stripped "prefix" is request data: one starting with "//" would make the
// directory redirect and the path-absolute self-links network-path
// references to a host of the client's choosing.
func TestStrippedPrefixNeverNamesAHost(t *testing.T) {
	s := &caddytest.Site{T: t, CatchAll: true}
	if err := s.Load(`
	root * ` + caddytest.SiteRoot(t) + `
	route {
		uri path_regexp ^.*(/ark:.*)$ $1
		ark {
			naan 12345
			map ark:12345/zz9 /objects/b2c4d6/
			map ark:12345/x5 https://repo.example.org/x5
		}
		file_server
	}`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	for _, p := range []string{"//evil.example/ark:12345/zz9", "//evil.example/ark:12345/x5", "///evil.example/ark:12345/zz9"} {
		got := s.Get(p)
		if strings.HasPrefix(got.Location, "//") {
			t.Errorf("%s: Location %q names another host", p, got.Location)
		}
		links, err := testkit.ParseLinkHeader(got.Header.Values("Link"), false)
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range links {
			if strings.HasPrefix(link.Target, "//") {
				t.Errorf("%s: Link to %q names another host", p, link.Target)
			}
		}
	}
	if got := s.Get("//evil.example/ark:12345/zz9"); got.Status != 302 || got.Location != "/ark:12345/zz9/" {
		t.Errorf("directory redirect: got %d %q, want 302 /ark:12345/zz9/", got.Status, got.Location)
	}
}

// The service prefix in links is the one the site is configured for,
// whatever dot segments or extra slashes the client wrote around it.
func TestServicePrefixInLinksIsCanonical(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	handle_path /resolver/* {
		ark {
			map ark:12345/th /objects/thesis.html
		}
		file_server
	}`)
	want := s.Base + "/resolver/ark:12345/th"
	for _, p := range []string{"/resolver/ark:12345/th", "/resolver/x/../ark:12345/th", "/x/../resolver/ark:12345/th", "/resolver///ark:12345/th", "/resolver/./ark:12345/th"} {
		got := s.Get(p)
		links, err := testkit.ParseLinkHeader(got.Header.Values("Link"), false)
		if err != nil {
			t.Fatal(err)
		}
		var citeAs []string
		for _, l := range links {
			if slices.Contains(l.Rels(), "cite-as") {
				citeAs = append(citeAs, l.Target)
			}
		}
		if got.Status != http.StatusOK || !slices.Equal(citeAs, []string{want}) {
			t.Errorf("%s: got %d cite-as %q, want %s", p, got.Status, citeAs, want)
		}
	}
}
