package urlpath

import (
	"errors"
	"strings"
)

// A target built for a request joins what the operator wrote (an entry's
// target, a template's text) with what the request brought (a qualifier, a
// placeholder's value). The rule for every answer, served in place or
// redirected: a path segment that request data creates or extends never
// decodes to something starting with ".", so that no request reaches a
// hidden file (".env", ".git/") or climbs with "..", and never holds a
// backslash or control character (NUL included). Decoding is repeated until nothing
// changes, so that "%252e" counts as a dot too: a file server decodes once,
// but an upstream behind reverse_proxy may decode again.

// ErrDotSegment and errControlByte are the reasons a built target is refused.
var (
	ErrDotSegment  = errors.New(`a path segment taken from the request would start with "." (a hidden file, "." or ".."), or hold a backslash or control character, once decoded`)
	errControlByte = errors.New("the target would hold a control character taken from the request")
)

// maxDecodings bounds how often a segment is decoded while looking for a
// dot: "%25" nested deeper than this is refused as if it were one.
const maxDecodings = 4

// Built is a target under construction: its bytes, and which of them
// came from the request.
type Built struct {
	b       []byte
	request []bool // request[i] reports whether b[i] came from the request
	empty   []int  // where request data added nothing: its segment still depends on it
}

// Add appends s, taken from the request or written by the operator.
func (t *Built) Add(s string, fromRequest bool) {
	if fromRequest && s == "" {
		t.empty = append(t.empty, len(t.b))
	}
	t.b = append(t.b, s...)
	for range len(s) {
		t.request = append(t.request, fromRequest)
	}
}

// insert puts s, taken from the request, at byte i.
func (t *Built) insert(i int, s string) {
	t.b = append(t.b[:i:i], append([]byte(s), t.b[i:]...)...)
	t.request = append(t.request[:i:i], append(make([]bool, len(s)), t.request[i:]...)...)
	for j := range len(s) {
		t.request[i+j] = true
	}
}

// InsertSuffix puts suffix, an identifier's qualifier taken from the
// request, at the end of the target's path, before its query or fragment.
func (t *Built) InsertSuffix(suffix string) {
	end := t.pathEnd()
	if end > 0 && t.b[end-1] == '/' && strings.HasPrefix(suffix, "/") {
		suffix = suffix[1:] // a target naming a directory already ends in the separator
	}
	t.insert(end, suffix)
}

// pathEnd returns where the path of the target ends: at its query or
// fragment, or at its end.
func (t *Built) pathEnd() int {
	for i, c := range t.b {
		if c == '?' || c == '#' {
			return i
		}
	}
	return len(t.b)
}

// Check applies the rule above to the target's path, after the scheme and
// host of a URL. A local target starts with the operator's "/"; only a URL
// has a scheme and host to skip, and its "://" is the first one, written
// by the operator: one in request data never moves the path's start.
func (t *Built) Check() error {
	for i, c := range t.b {
		if t.request[i] && (c < ' ' || c == 0x7f) {
			return errControlByte
		}
	}
	end := t.pathEnd()
	start := 0
	if i := strings.Index(string(t.b[:end]), "://"); i >= 0 && (len(t.b) == 0 || t.b[0] != '/') {
		start = end
		if j := strings.IndexByte(string(t.b[i+3:end]), '/'); j >= 0 {
			start = i + 3 + j
		}
	}
	segment, touched, empty := start, false, t.empty
	for i := start; i <= end; i++ {
		for len(empty) > 0 && empty[0] <= i {
			touched, empty = touched || empty[0] >= segment, empty[1:]
		}
		if i == end || t.b[i] == '/' {
			if touched && DottedSegment(string(t.b[segment:i])) {
				return ErrDotSegment
			}
			segment, touched = i+1, false
			continue
		}
		touched = touched || t.request[i]
	}
	return nil
}

// String returns the target, with each byte from the request that may not
// stand in a URL (space, non-ASCII, quotes) percent-encoded, and "#", and
// in the query also the bytes that would end or change a value there
// ("&", ";", "+"): request data is a value, never a delimiter.
func (t *Built) String() string {
	var b strings.Builder
	b.Grow(len(t.b))
	inQuery := false
	for i, c := range t.b {
		if !t.request[i] && c == '?' {
			inQuery = true
		}
		if t.request[i] && (UnsafeInQuery(rune(c)) || c == '#' || inQuery && strings.IndexByte("&;+", c) >= 0) {
			const hex = "0123456789ABCDEF"
			b.Write([]byte{'%', hex[c>>4], hex[c&0xf]})
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// DottedSegment reports whether the escaped segment, decoded once or more
// (leniently: a "%" that starts no escape stays, as many decoders keep it),
// holds a part that starts with "." ("/" separating parts once decoded), a
// backslash or a control character. A segment still encoded after maxDecodings counts as
// dotted.
func DottedSegment(segment string) bool {
	for range maxDecodings {
		if strings.ContainsFunc(segment, func(c rune) bool { return c < ' ' || c == 0x7f || c == '\\' }) {
			return true
		}
		for part := range strings.SplitSeq(segment, "/") {
			if strings.HasPrefix(part, ".") {
				return true
			}
		}
		decoded := unescapeLeniently(segment)
		if decoded == segment {
			return false
		}
		segment = decoded
	}
	return true
}

// unescapeLeniently decodes every "%XX" of s and keeps any other "%" as it
// is, as lenient decoders do: "%2eenv%zz" is ".env%zz", where a strict one
// gives up on the whole string.
func unescapeLeniently(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHexByte(s[i+1]) && isHexByte(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

func isHexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// HiddenSegment reports whether a segment of the escaped path, decoded
// once or more, starts with "." or holds a backslash or control character
// (DottedSegment).
func HiddenSegment(path string) bool {
	for seg := range strings.SplitSeq(strings.TrimPrefix(path, "/"), "/") {
		if DottedSegment(seg) {
			return true
		}
	}
	return false
}
