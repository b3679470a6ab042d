package normalize

import "strings"

// URN is a parsed, normalized URN (RFC 8141). The zero value is not a URN;
// get one from ParseURN.
type URN struct {
	key      string // "urn:" NID ":" NSS, normalized
	nidEnd   int    // index in key of the ":" after the NID
	r, q     string // r- and q-component without "?+" / "?="; "" when absent
	fragment string // "#..." as written, or ""
}

// Key returns the assigned-name in URN-equivalence form: "urn" and the NID
// lowercased, the hex digits of percent-encodings in the NSS uppercased.
func (u URN) Key() string { return u.key }

// String returns the key followed by the r-, q- and f-components as written.
func (u URN) String() string {
	s := u.key
	if u.r != "" {
		s += "?+" + u.r
	}
	if u.q != "" {
		s += "?=" + u.q
	}
	return s + u.fragment
}

// NID returns the namespace identifier, lowercased.
func (u URN) NID() string { return u.key[len("urn:"):u.nidEnd] }

// NSS returns the namespace-specific string with uppercase percent-encoding
// hex. Percent-encodings are never decoded.
func (u URN) NSS() string { return u.key[u.nidEnd+1:] }

// RComponent returns the r-component without its "?+", or "".
func (u URN) RComponent() string { return u.r }

// QComponent returns the q-component without its "?=", or "". A resolver
// that maps the URN to a URL passes it on as the URL's query.
func (u URN) QComponent() string { return u.q }

// FComponent returns the f-component without its "#", or "".
func (u URN) FComponent() string { return strings.TrimPrefix(u.fragment, "#") }

func (p Parser) parseURN(s string) (URN, error) {
	core, tail := s, ""
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		core, tail = s[:i], s[i:]
	}
	if err := p.checkLength(core); err != nil {
		return URN{}, err
	}
	if !hasPrefixFold(core, "urn:") {
		return URN{}, refuse(ErrNotIdentifier, 0, `a URN starts with "urn:"`)
	}
	colon := strings.IndexByte(core[4:], ':')
	if colon < 0 {
		return URN{}, refuse(ErrBadURN, len(core), `no ":" after the NID`)
	}
	nidEnd := 4 + colon
	if err := checkNID(core[4:nidEnd], 4); err != nil {
		return URN{}, err
	}
	b := builder{src: core}
	for i := range nidEnd + 1 {
		if c := core[i]; 'A' <= c && c <= 'Z' {
			b.byte(c + 'a' - 'A')
		} else {
			b.keep(i)
		}
	}
	if err := writeNSS(&b, core, nidEnd+1); err != nil {
		return URN{}, err
	}
	u := URN{key: b.String(), nidEnd: nidEnd}
	return u, u.parseComponents(tail, len(core))
}

// checkNID validates a NID: 2 to 32 letters, digits and hyphens, starting
// and ending with a letter or digit.
func checkNID(nid string, offset int) error {
	if len(nid) < 2 || len(nid) > 32 {
		return refuse(ErrBadURN, offset, "the NID must be 2 to 32 characters long")
	}
	for i := range len(nid) {
		c := nid[i]
		if !isAlnum(c) && (c != '-' || i == 0 || i == len(nid)-1) {
			return refuse(ErrBadURN, offset+i, "the NID may hold letters, digits and inner hyphens only")
		}
	}
	return nil
}

// writeNSS writes the NSS at core[start:] with uppercase percent-encoding
// hex; raw non-ASCII characters are percent-encoded (the IRI-to-URI
// mapping).
func writeNSS(b *builder, core string, start int) error {
	if start == len(core) {
		return refuse(ErrBadURN, start, "the NSS is empty")
	}
	if core[start] == '/' {
		return refuse(ErrBadURN, start, `the NSS cannot start with "/"`)
	}
	for i := start; i < len(core); {
		next, err := urnChar(core, i, false)
		if err != nil {
			return err
		}
		switch c := core[i]; {
		case c == '%':
			for j := i; j < next; j += 3 {
				octet, _ := decodePercent(core, j)
				b.keepPct(j, octet)
			}
		case c >= 0x80:
			for j := i; j < next; j++ {
				b.pct(core[j])
			}
		default:
			b.keep(i)
		}
		i = next
	}
	return nil
}

// parseComponents reads the r-, q- and f-components that follow the
// assigned-name; offset is where tail starts in the input.
func (u *URN) parseComponents(tail string, offset int) error {
	if i := strings.IndexByte(tail, '#'); i >= 0 {
		if err := checkURNPart(tail[i+1:], offset+i+1); err != nil {
			return err
		}
		u.fragment, tail = tail[i:], tail[:i]
	}
	if tail == "" {
		return nil
	}
	if rest, ok := strings.CutPrefix(tail, "?+"); ok {
		r, q, hasQ := strings.Cut(rest, "?=")
		if err := checkComponent(r, offset+2, "r"); err != nil {
			return err
		}
		u.r = r
		if !hasQ {
			return nil
		}
		offset += 2 + len(r)
		tail = "?=" + q
	}
	q, ok := strings.CutPrefix(tail, "?=")
	if !ok {
		return refuse(ErrBadURN, offset, `"?" in a URN must be followed by "+" or "="`)
	}
	if err := checkComponent(q, offset+2, "q"); err != nil {
		return err
	}
	u.q = q
	return nil
}

// checkComponent validates a non-empty r- or q-component.
func checkComponent(c string, offset int, name string) error {
	if c == "" {
		return refuse(ErrBadURN, offset, "the "+name+"-component is empty")
	}
	return checkURNPart(c, offset)
}

// checkURNPart validates a component: pchar, "/" and "?".
func checkURNPart(s string, offset int) error {
	for i := 0; i < len(s); {
		next, err := urnChar(s, i, true)
		if err != nil {
			return shift(err, offset)
		}
		i = next
	}
	return nil
}

// urnChar checks the character at s[i] (a "%XX" run or a UTF-8 sequence
// counts as one) and returns the offset after it. inComponent allows "?".
func urnChar(s string, i int, inComponent bool) (int, error) {
	c := s[i]
	switch {
	case c == '%':
		return checkEncoded(s, i)
	case c >= 0x80:
		return checkRaw(s, i)
	case isASCIIControl(c):
		return 0, checkRune(rune(c), i)
	case isPchar(c) || c == '/' || (inComponent && c == '?'):
		return i + 1, nil
	}
	return 0, refuse(ErrBadURN, i, "character "+quoteASCII(c)+" is not allowed in a URN")
}

// isPchar reports whether c is an RFC 3986 pchar other than a
// percent-encoding: unreserved, sub-delims, ":" or "@".
func isPchar(c byte) bool {
	if isAlnum(c) {
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
}
