package metadata

import "strings"

// spdxLicenses is where SPDX publishes its license list: an SPDX
// identifier stands for the URL of its page there.
const spdxLicenses = "https://spdx.org/licenses/"

// License is the license of the referent.
type License struct {
	// URI identifies the license: the URI given, or the SPDX page of the
	// identifier given.
	URI string
	// SPDX is the SPDX identifier ("CC-BY-4.0"), when one was given or the
	// URI is an SPDX license page.
	SPDX string
	// Text is a value that is neither a URI nor an SPDX identifier, as
	// written.
	Text string
}

// ParseLicense reads the license syntax: a URI, or an SPDX license
// identifier (letters, digits, ".", "-" and "+", e.g. "CC-BY-4.0" or
// "MIT"), which stands for https://spdx.org/licenses/ID. Anything else is
// kept as text.
func ParseLicense(v string) License {
	v = clean(v)
	switch {
	case v == "":
		return License{}
	case strings.Contains(v, "://") || strings.HasPrefix(v, "urn:"):
		l := License{URI: v}
		if id, ok := strings.CutPrefix(v, spdxLicenses); ok {
			id = strings.TrimSuffix(strings.TrimSuffix(id, ".html"), ".json")
			if isSPDXID(id) {
				l.SPDX = id
			}
		}
		return l
	case isSPDXID(v):
		return License{URI: spdxLicenses + v, SPDX: v}
	}
	return License{Text: v}
}

// Known reports whether a license is given.
func (l License) Known() bool { return l.URI != "" || l.Text != "" }

// isSPDXID reports whether s has the syntax of an SPDX license identifier
// (idstring: letters, digits, "." and "-", optionally ending in "+"),
// with at least one letter.
func isSPDXID(s string) bool {
	s = strings.TrimSuffix(s, "+")
	if s == "" {
		return false
	}
	letter := false
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9', c == '.', c == '-':
		default:
			return false
		}
	}
	return letter
}
