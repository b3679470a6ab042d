package signpost

import (
	"strings"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
)

// Link is one typed web link (RFC 8288) from a context to Href.
type Link struct {
	// Href is the target's absolute URL (path-absolute when the site's
	// host is not known).
	Href string
	// Rel is the link relation type: "cite-as", "describedby", ....
	Rel string
	// Type is the media type of the target, or "".
	Type string
}

// appendValue appends l as an RFC 8288 link-value, with an anchor
// parameter when anchor is not "".
func (l Link) appendValue(b []byte, anchor string) []byte {
	b = append(b, '<')
	b = append(b, l.Href...)
	b = append(b, `>; rel="`...)
	b = append(b, l.Rel...)
	b = append(b, '"')
	if l.Type != "" {
		b = append(b, `; type="`...)
		b = append(b, l.Type...)
		b = append(b, '"')
	}
	if anchor != "" {
		b = append(b, `; anchor="`...)
		b = append(b, anchor...)
		b = append(b, '"')
	}
	return b
}

// Item is a content resource of the identifier (signposting's "item").
type Item struct {
	// Href is its absolute URL.
	Href string
	// Type is its media type, or "".
	Type string
}

// linkURL returns s as the target of a link: an absolute http(s) URL with
// anything not printable ASCII percent-encoded, or "" when s is not one
// or holds a character that would end a link-value's URI-reference
// ('<', '>', '"', a space).
func linkURL(s string) string {
	s = strings.TrimSpace(s)
	lower := strings.ToLower(s)
	if !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "http://") {
		return ""
	}
	s = urlpath.ASCII(s)
	if strings.ContainsAny(s, "<>\"\\` {}|^") {
		return ""
	}
	return s
}

// mediaType returns s when it is a media type (type/subtype of token
// characters, no parameters), else "".
func mediaType(s string) string {
	typ, subtype, ok := strings.Cut(s, "/")
	if !ok || !isToken(typ) || !isToken(subtype) {
		return ""
	}
	return strings.ToLower(s)
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// BasicLinks returns the links of an answer for a resolved identifier
// whose URL is base + "/" + key, when signposting is off or the
// identifier is a URN (which has no ?info): describedby to its ?info
// (ARKs only), then cite-as when it is served in place; the first n of
// links hold them. Their text is made in one allocation, shared by both.
func BasicLinks(base, key string, isARK, inPlace bool) (links [2]string, n int) {
	var tails [2]string
	if isARK {
		tails[n], n = `?info>; rel="describedby"`, n+1
	}
	if inPlace {
		tails[n], n = `>; rel="cite-as"`, n+1
	}
	if n == 0 {
		return links, 0
	}
	url := len("<") + len(base) + len("/") + len(key)
	size := 0
	for _, tail := range tails[:n] {
		size += url + len(tail)
	}
	var text strings.Builder
	text.Grow(size)
	for _, tail := range tails[:n] {
		text.WriteByte('<')
		text.WriteString(base)
		text.WriteByte('/')
		text.WriteString(key)
		text.WriteString(tail)
	}
	all := text.String()
	for i, tail := range tails[:n] {
		links[i], all = all[:url+len(tail)], all[url+len(tail):]
	}
	return links, n
}
