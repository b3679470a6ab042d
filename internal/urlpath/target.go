package urlpath

import (
	"net/url"
	"strings"
)

// JoinTarget appends an identifier's suffix to the path of target and the
// request's query to target's query, keeping any fragment last.
func JoinTarget(target, suffix, query string) string {
	if suffix == "" && query == "" {
		return target
	}
	rest, fragment, hasFragment := strings.Cut(target, "#")
	base, targetQuery, hasQuery := strings.Cut(rest, "?")
	var b strings.Builder
	b.Grow(len(target) + len(suffix) + len(query) + 2)
	b.WriteString(base)
	if strings.HasSuffix(base, "/") && strings.HasPrefix(suffix, "/") {
		suffix = suffix[1:] // a target naming a directory already ends in the separator
	}
	b.WriteString(suffix)
	switch {
	case hasQuery && query != "":
		b.WriteString("?" + targetQuery + "&" + query)
	case hasQuery:
		b.WriteString("?" + targetQuery)
	case query != "":
		b.WriteString("?" + query)
	}
	if hasFragment {
		b.WriteString("#" + fragment)
	}
	return b.String()
}

// LocalPathSafe reports whether the escaped local path (query allowed)
// decodes to a path without "." or ".." segments, backslashes or NULs, so
// that nothing taken from a request can climb out of the target's
// directory.
func LocalPathSafe(escaped string) bool {
	p, _, _ := strings.Cut(escaped, "?")
	decoded, err := url.PathUnescape(p)
	if err != nil || strings.ContainsAny(decoded, "\\\x00") {
		return false
	}
	for rest := decoded; rest != ""; {
		var seg string
		seg, rest, _ = strings.Cut(rest, "/")
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// SafeQuery returns the raw query of a request with every byte that may not
// stand in a Location header or a URL percent-encoded.
func SafeQuery(raw string) string {
	if !strings.ContainsFunc(raw, UnsafeInQuery) {
		return raw
	}
	return PercentEncode(raw, UnsafeInQuery)
}

// PercentEncode percent-encodes, with uppercase hex, each byte of s for
// which unsafe is true.
func PercentEncode(s string, unsafe func(rune) bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for _, c := range []byte(s) {
		if unsafe(rune(c)) {
			b.Write([]byte{'%', hex[c>>4], hex[c&0xf]})
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// UnsafeInQuery reports whether byte c may not stand as it is in a query
// of a Location header or a URL: controls, space, non-ASCII and the
// characters RFC 3986 excludes.
func UnsafeInQuery(c rune) bool {
	return c <= ' ' || c >= 0x7f || strings.ContainsRune("\"<>\\`{|}^", c)
}

// WithRootPath gives an absolute URL without a path the path "/", so that a
// suffix appended to it lands in the path and never in the host.
func WithRootPath(target string) string {
	i := strings.Index(target, "://")
	if i < 0 {
		return target
	}
	for j := i + len("://"); j < len(target); j++ {
		switch target[j] {
		case '/':
			return target // most targets: every lookup of the store's passes here
		case '?', '#':
			return target[:j] + "/" + target[j:]
		}
	}
	return target + "/"
}

// ASCII returns a target as it leaves in a Location field: with
// each byte that is not printable ASCII percent-encoded (a space, a control
// character, and every byte of a non-ASCII character), as RFC 3987 maps an
// IRI to a URI, so that no raw byte reaches a client and no bidi override
// (U+202E) or invisible character makes the URL display other than it is.
// A host name is encoded the same way, as net/url writes one; browsers read
// it back as the name.
func ASCII(target string) string {
	if !strings.ContainsFunc(target, notPrintableASCII) {
		return target
	}
	return PercentEncode(target, notPrintableASCII)
}

func notPrintableASCII(c rune) bool { return c <= ' ' || c >= 0x7f }
