package ark

import (
	"net/url"
	"strings"
	"testing"
)

// Targets built from request data must never leave the target's directory,
// inject headers or change the scheme or host.
func TestTargetsBuiltFromRequestsAreSafe(t *testing.T) {
	s := startSite(t, `
	root * `+testRoot(t)+`
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
		got := s.get(p)
		if strings.Contains(got.body, "not under the target directory") || got.status != 400 {
			t.Errorf("%s: got %d %q, want 400 and no file", p, got.status, got.body)
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
		got := s.get(p)
		if got.status >= 400 {
			continue
		}
		u, err := url.Parse(got.location)
		if err != nil || u.Scheme != "https" || u.Host != "repo.example.org" {
			t.Errorf("%s: Location %q left https://repo.example.org", p, got.location)
		}
		if strings.ContainsAny(got.location, "\r\n\"<> ") || got.header.Get("Set-Cookie") != "" {
			t.Errorf("%s: unsafe Location %q", p, got.location)
		}
	}
}
