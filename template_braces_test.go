package ark

import "testing"

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
