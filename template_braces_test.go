package ark

import (
	"net/http"
	"testing"
)

// A brace escaped with a backslash is text, as in every other Caddy
// placeholder string: it is not a placeholder, and it is not refused as a
// segment with a backslash taken from the request. The target keeps the
// braces as the operator wrote them, as it did before expansions were
// checked piece by piece.
func TestTemplateEscapedBracesAreText(t *testing.T) {
	s := startSite(t, `ark {
		shoulder ark:12345/t3 "https://repo.example.org/a\{x\}/{http.ark.blade}"
	}`)
	s.expectRedirects(map[string]string{"/ark:12345/t3b": "https://repo.example.org/a{x}/b"})
}

// {http.ark.id} holds the qualifier: a template placing it is not given
// the qualifier a second time.
func TestTemplateWithIDDoesNotRepeatTheQualifier(t *testing.T) {
	s := startSite(t, `
	ark {
		shoulder ark:12345/t5 https://mirror.example.org/{http.ark.id}
	}`)
	for p, want := range map[string]string{
		"/ark:12345/t5a":     "https://mirror.example.org/ark:12345/t5a",
		"/ark:12345/t5a/b.c": "https://mirror.example.org/ark:12345/t5a/b.c",
		"/ark:/12345/t5a.en": "https://mirror.example.org/ark:12345/t5a.en",
	} {
		if got := s.get(p); got.status != http.StatusFound || got.location != want {
			t.Errorf("%s: got %d %q, want 302 %q", p, got.status, got.location, want)
		}
	}
}
