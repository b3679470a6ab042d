package ark

import (
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
)

// asciiLocation returns a target as it leaves in a Location field: with
// each byte that is not printable ASCII percent-encoded (a space, a control
// character, and every byte of a non-ASCII character), as RFC 3987 maps an
// IRI to a URI, so that no raw byte reaches a client and no bidi override
// (U+202E) or invisible character makes the URL display other than it is.
// A host name is encoded the same way, as net/url writes one; browsers read
// it back as the name.
func asciiLocation(target string) string {
	if !strings.ContainsFunc(target, notPrintableASCII) {
		return target
	}
	return urlpath.PercentEncode(target, notPrintableASCII)
}

func notPrintableASCII(c rune) bool { return c <= ' ' || c >= 0x7f }
