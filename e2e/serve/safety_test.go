package serve

import (
	"net/url"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// Targets built from request data must never leave the target's directory,
// inject headers or change the scheme or host.
func TestTargetsBuiltFromRequestsAreSafe(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		map ark:12345/b2c4d6 /dir
		map ark:12345/h7 https://repo.example.org
		map ark:12345/h8 https://repo.example.org/base?x=1
		shoulder ark:12345/t3 /dir/{http.ark.blade}
		shoulder ark:12345/w4 https://repo.example.org/w/{http.ark.blade}
	}
	file_server`)
	for _, p := range []string{
		"/ark:12345/b2c4d6/%2E%2E/secret.txt",
		"/ark:12345/b2c4d6/%2e%2e%2fsecret.txt",
		"/ark:12345/b2c4d6/sub/%2E%2E/%2E%2E/secret.txt",
		"/ark:12345/b2c4d6/%2E%2E%5Csecret.txt",
		"/ark:12345/t3%2E%2E%2Fsecret.txt",
		"/ark:12345/t3%2E%2E",
	} {
		got := s.Get(p)
		if strings.Contains(got.Body, "not under the target directory") || got.Status != 400 {
			t.Errorf("%s: got %d %q, want 400 and no file", p, got.Status, got.Body)
		}
	}
	for _, p := range []string{
		"/ark:12345/h7.evil.com",
		"/ark:12345/h7@evil.com",
		"/ark:12345/h7/@evil.com",
		"/ark:12345/h8.evil.com",
		"/ark:12345/w4@evil.com",
		"/ark:12345/w4%40evil.com/x",
		"/ark:12345/h7?%0D%0ASet-Cookie:%20x=1",
		"/ark:12345/h7?a=%22%3E%3Cscript%3E",
	} {
		got := s.Get(p)
		if got.Status >= 400 {
			continue
		}
		u, err := url.Parse(got.Location)
		if err != nil || u.Scheme != "https" || u.Host != "repo.example.org" {
			t.Errorf("%s: Location %q left https://repo.example.org", p, got.Location)
		}
		if strings.ContainsAny(got.Location, "\r\n\"<> ") || got.Header.Get("Set-Cookie") != "" {
			t.Errorf("%s: unsafe Location %q", p, got.Location)
		}
	}
}

// Findings of a review, each shown against a real Caddy before its fix.
func TestTemplatesAndSuffixesCannotLeaveTheirOrigin(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345 67890 13030
		map ark:12345/x5 /files/x5/ 302
		map ark:12345/u1 https://repo.example.org/a/
		map ark:12345/d2 /files/
		shoulder ark:12345/t3 https://example.org
		shoulder ark:12345/w4 https://repo.example.org/t/{http.ark.blade}
		shoulder ark:67890 /{http.ark.suffix} 302
		shoulder ark:13030 /{http.ark.name}.html 302
	}
	file_server`)
	for _, p := range []string{
		"/ark:12345/t3x.attacker.com",              // template without a path: the host must not grow
		"/ark:67890/x/evil.com/p",                  // a local template must not become //host
		"/ark:12345/x5/%2E%2E/%2E%2E/secret",       // redirect to a local path with .. segments
		"/ark:12345/u1/%2E%2E/x",                   // redirect to a URL with .. segments
		"/ark:12345/w4x%2F%2E%2E%2F%2E%2E%2Fadmin", // .. through a template placeholder
		"/ark:12345/d2.env",                        // a variant glued onto a directory: /files/.env
		"/ark:13030/%2E%2E",                        // .. as a Name in a template
	} {
		got := s.Get(p)
		if got.Status == 400 {
			continue
		}
		if strings.Contains(got.Body, "SECRET") {
			t.Errorf("%s served the dotfile: %q", p, got.Body)
		}
		u, err := url.Parse(got.Location)
		if err != nil || (u.Host != "" && u.Host != "example.org" && u.Host != "repo.example.org") || strings.HasPrefix(got.Location, "//") {
			t.Errorf("%s: Location %q leaves the site or the template's host", p, got.Location)
		}
		decoded, _ := url.PathUnescape(u.Path)
		if strings.Contains(decoded, "..") || strings.Contains(decoded, "/.env") {
			t.Errorf("%s: Location %q climbs out or reaches a dotfile", p, got.Location)
		}
	}
	if got := s.Get("/ark:12345/t3x"); got.Status != 302 || got.Location != "https://example.org/" {
		t.Errorf("a template without placeholders: got %d %q", got.Status, got.Location)
	}
}

func TestRequestQueryBytesAreEncodedOnce(t *testing.T) {
	s := caddytest.StartSite(t, `ark {
		map ark:12345/x5 https://repo.example.org/a
	}`)
	if got := s.Get("/ark:12345/x5?q=\xd0\xb1&r=%22"); got.Location != "https://repo.example.org/a?q=%D0%B1&r=%22" {
		t.Errorf("got %d %q", got.Status, got.Location)
	}
}

// Raw UTF-8 in the request path must not change how the rest of it is read:
// Go's URL.EscapedPath re-escapes the decoded path then, turning %2F into /.
func TestRawUTF8InThePathKeepsEncodedSlashes(t *testing.T) {
	s := caddytest.StartSite(t, `ark {
		naan 12345
		map ark:12345/x5%D0%B1 https://repo.example.org/a
		foreign 404
	}`)
	raw, encoded := s.Get("/ark:12345/x5\xd0\xb1%2Fy"), s.Get("/ark:12345/x5%D0%B1%2Fy")
	if raw.Status != encoded.Status || raw.Location != encoded.Location || encoded.Status != 404 {
		t.Errorf("raw: %d %q; encoded: %d %q; both should be 404 (%%2F is not a component separator)", raw.Status, raw.Location, encoded.Status, encoded.Location)
	}
	raw, encoded = s.Get("/ark:12345/x5\xd0\xb1/y"), s.Get("/ark:12345/x5%D0%B1/y")
	if raw.Location != "https://repo.example.org/a/y" || encoded.Location != raw.Location {
		t.Errorf("raw: %d %q; encoded: %d %q", raw.Status, raw.Location, encoded.Status, encoded.Location)
	}
}
