package normalize

import "testing"

func TestTrimResolver(t *testing.T) {
	for _, c := range []struct{ in, id, prefix string }{
		{"https://n2t.net/ark:/12345/x5wf6789", "ark:/12345/x5wf6789", "https://n2t.net/"},
		{"http://example.org/ark:12345/x5wf6789/c2?info", "ark:12345/x5wf6789/c2?info", "http://example.org/"},
		{"HTTPS://Example.org:8443/resolver/ARK:/12345/x", "ARK:/12345/x", "HTTPS://Example.org:8443/resolver/"},
		{"https://nbn-resolving.org/urn:nbn:de:101-2024", "urn:nbn:de:101-2024", "https://nbn-resolving.org/"},
		// Not embedded identifiers: returned as they are.
		{"ark:/12345/x5wf6789", "ark:/12345/x5wf6789", ""},
		{"https://example.org/", "https://example.org/", ""},
		{"https://example.org", "https://example.org", ""},
		{"https://example.org/page?q=/ark:12345/x", "https://example.org/page?q=/ark:12345/x", ""},
		{"https://example.org/a#/ark:12345/x", "https://example.org/a#/ark:12345/x", ""},
		{"https://example.org/items/x-ark:12345", "https://example.org/items/x-ark:12345", ""},
		{"ftp://example.org/ark:12345/x", "ftp://example.org/ark:12345/x", ""},
		{"/ark:12345/x", "/ark:12345/x", ""},
	} {
		id, prefix := TrimResolver(c.in)
		if id != c.id || prefix != c.prefix {
			t.Errorf("TrimResolver(%q) = %q, %q; want %q, %q", c.in, id, prefix, c.id, c.prefix)
		}
	}
}
