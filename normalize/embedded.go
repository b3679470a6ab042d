package normalize

import "strings"

// TrimResolver returns the identifier of an Embedded ARK: an http(s) URL
// made of an ARK resolver's prefix followed by an ARK, such as
// "https://n2t.net/ark:/12345/x5wf6789" or
// "http://example.org/resolver/ark:12345/x5wf6789". The prefix is not part
// of the ARK (draft-ark-uri-scheme, Embedded ARKs): every resolver's URL of
// an ARK names the same identifier. The ARK starts at the first path
// segment that starts with "ark:" in any case; a URN embedded the same way
// ("https://nbn-resolving.org/urn:nbn:de:101-2024") is found likewise. The
// returned prefix is what was cut off, so that byte offsets in the
// identifier can be shifted back onto s. When s is not an http(s) URL
// holding an identifier, it is returned unchanged with an empty prefix.
func TrimResolver(s string) (id, prefix string) {
	var rest int
	switch {
	case hasPrefixFold(s, "https://"):
		rest = len("https://")
	case hasPrefixFold(s, "http://"):
		rest = len("http://")
	default:
		return s, ""
	}
	slash := strings.IndexByte(s[rest:], '/')
	if slash < 0 {
		return s, ""
	}
	for i := rest + slash; i >= 0 && i < len(s); {
		seg := s[i+1:]
		if hasPrefixFold(seg, "ark:") || hasPrefixFold(seg, "urn:") {
			return seg, s[:i+1]
		}
		if end := strings.IndexAny(seg, "/?#"); end >= 0 && seg[end] == '/' {
			i += 1 + end
			continue
		}
		break
	}
	return s, ""
}
