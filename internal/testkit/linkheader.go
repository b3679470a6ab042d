package testkit

import (
	"fmt"
	"net/url"
	"strings"
)

// WebLink is one link of a Link header or an application/linkset
// document, as RFC 8288 reads it.
type WebLink struct {
	// Target is the URI-reference between "<" and ">".
	Target string
	// Params are the link-params, names lower-cased, values unquoted, in
	// order; a name may repeat.
	Params [][2]string
}

// Param returns the first value of the parameter name, and whether there
// is one (RFC 8288: occurrences of rel after the first are ignored).
func (l WebLink) Param(name string) (string, bool) {
	for _, p := range l.Params {
		if p[0] == name {
			return p[1], true
		}
	}
	return "", false
}

// Rels returns the link's relation types: its rel parameter split at
// spaces.
func (l WebLink) Rels() []string {
	rel, _ := l.Param("rel")
	return strings.Fields(rel)
}

// ParseLinkHeader reads the values of Link header fields by the grammar
// of RFC 8288, section 3, strictly: every link-value is "<" URI-Reference
// ">" followed by link-params (token BWS ["=" BWS (token / quoted-string)])
// separated by ";", link-values separated by "," (RFC 9110's list rule,
// empty elements allowed), and every link has exactly one rel. Anything
// else is an error naming where it went wrong. linkset allows line breaks
// between link-values, as application/linkset documents (RFC 9264,
// section 4.1) do.
func ParseLinkHeader(values []string, linkset bool) ([]WebLink, error) {
	var links []WebLink
	for _, v := range values {
		p := &linkParser{s: v, linkset: linkset}
		for {
			p.ows()
			if p.eof() {
				break
			}
			if p.peek() == ',' {
				p.i++
				continue
			}
			l, err := p.linkValue()
			if err != nil {
				return nil, fmt.Errorf("Link %q at byte %d: %w", v, p.i, err)
			}
			links = append(links, l)
			p.ows()
			if !p.eof() && p.peek() != ',' {
				return nil, fmt.Errorf("Link %q at byte %d: want \",\" between link-values", v, p.i)
			}
		}
	}
	return links, nil
}

type linkParser struct {
	s       string
	i       int
	linkset bool
}

func (p *linkParser) eof() bool  { return p.i >= len(p.s) }
func (p *linkParser) peek() byte { return p.s[p.i] }

// ows skips optional white space (and line breaks in a linkset).
func (p *linkParser) ows() {
	for !p.eof() {
		c := p.peek()
		if c != ' ' && c != '\t' && !(p.linkset && (c == '\n' || c == '\r')) {
			return
		}
		p.i++
	}
}

func (p *linkParser) linkValue() (WebLink, error) {
	var l WebLink
	if p.peek() != '<' {
		return l, fmt.Errorf("want \"<\"")
	}
	end := strings.IndexByte(p.s[p.i:], '>')
	if end < 0 {
		return l, fmt.Errorf("no \">\" closing the URI-reference")
	}
	l.Target = p.s[p.i+1 : p.i+end]
	if strings.ContainsAny(l.Target, " \t<\"\r\n") {
		return l, fmt.Errorf("the URI-reference %q holds a character a URI may not", l.Target)
	}
	if _, err := url.Parse(l.Target); err != nil {
		return l, fmt.Errorf("the URI-reference %q: %v", l.Target, err)
	}
	for _, c := range []byte(l.Target) {
		if c >= 0x7f {
			return l, fmt.Errorf("the URI-reference %q is not ASCII", l.Target)
		}
	}
	p.i += end + 1
	rels := 0
	for {
		p.ows()
		if p.eof() || p.peek() != ';' {
			break
		}
		p.i++
		p.ows()
		name := p.token()
		if name == "" {
			return l, fmt.Errorf("want a parameter name")
		}
		name = strings.ToLower(name)
		p.ows()
		value := ""
		if !p.eof() && p.peek() == '=' {
			p.i++
			p.ows()
			var err error
			if value, err = p.tokenOrQuoted(); err != nil {
				return l, err
			}
		}
		if name == "rel" {
			rels++
		}
		l.Params = append(l.Params, [2]string{name, value})
	}
	if rels != 1 {
		return l, fmt.Errorf("<%s> has %d rel parameters, want 1", l.Target, rels)
	}
	return l, nil
}

func (p *linkParser) token() string {
	start := p.i
	for !p.eof() && isTokenChar(p.peek()) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *linkParser) tokenOrQuoted() (string, error) {
	if p.eof() {
		return "", fmt.Errorf("want a parameter value")
	}
	if p.peek() != '"' {
		if t := p.token(); t != "" {
			return t, nil
		}
		return "", fmt.Errorf("want a token or a quoted-string")
	}
	var b strings.Builder
	for p.i++; !p.eof(); p.i++ {
		switch c := p.peek(); {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\\':
			p.i++
			if p.eof() {
				return "", fmt.Errorf("a quoted-string ends in \"\\\"")
			}
			b.WriteByte(p.peek())
		case c < ' ' && c != '\t', c == 0x7f:
			return "", fmt.Errorf("a control character in a quoted-string")
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("an unterminated quoted-string")
}

// isTokenChar reports whether c is a tchar of RFC 9110.
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
