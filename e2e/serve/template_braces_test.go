package serve

import (
	"net/http"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A brace escaped with a backslash is text, as in every other Caddy
// placeholder string: it is not a placeholder, and it is not refused as a
// segment with a backslash taken from the request. The target keeps the
// braces as the operator wrote them, as it did before expansions were
// checked piece by piece.
func TestTemplateEscapedBracesAreText(t *testing.T) {
	s := caddytest.StartSite(t, `ark {
		shoulder ark:12345/t3 "https://repo.example.org/a\{x\}/{http.ark.blade}"
	}`)
	s.ExpectRedirects(map[string]string{"/ark:12345/t3b": "https://repo.example.org/a{x}/b"})
}

// {http.ark.id} holds the qualifier: a template placing it is not given
// the qualifier a second time.
func TestTemplateWithIDDoesNotRepeatTheQualifier(t *testing.T) {
	s := caddytest.StartSite(t, `
	ark {
		shoulder ark:12345/t5 https://mirror.example.org/{http.ark.id}
	}`)
	for p, want := range map[string]string{
		"/ark:12345/t5a":     "https://mirror.example.org/ark:12345/t5a",
		"/ark:12345/t5a/b.c": "https://mirror.example.org/ark:12345/t5a/b.c",
		"/ark:/12345/t5a.en": "https://mirror.example.org/ark:12345/t5a.en",
	} {
		if got := s.Get(p); got.Status != http.StatusFound || got.Location != want {
			t.Errorf("%s: got %d %q, want 302 %q", p, got.Status, got.Location, want)
		}
	}
}

// Request data a template places in the target's query is a value there:
// the bytes that would end it or change it ("&", ";", "+", "#") are
// percent-encoded; in the path a "+" is a plus and stays.
func TestTemplateQueryValuesFromTheRequestAreEncoded(t *testing.T) {
	s := caddytest.StartSite(t, `
	ark {
		shoulder ark:12345/t8 "https://repo.example.org/show?id={http.ark.blade}&tag={http.request.header.X-Tag}"
		shoulder ark:12345/t9 https://repo.example.org/t/{http.ark.blade}
	}`)
	got := s.Do(http.MethodGet, "/ark:12345/t8a+b", http.Header{"X-Tag": {"x&y=1;z+w#f"}})
	if want := "https://repo.example.org/show?id=a%2Bb&tag=x%26y=1%3Bz%2Bw%23f"; got.Status != http.StatusFound || got.Location != want {
		t.Errorf("in the query: got %d %q, want 302 %q", got.Status, got.Location, want)
	}
	if got := s.Get("/ark:12345/t9a+b"); got.Status != http.StatusFound || got.Location != "https://repo.example.org/t/a+b" {
		t.Errorf("in the path: got %d %q", got.Status, got.Location)
	}
}
