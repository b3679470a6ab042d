package normalize

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

const upperHex = "0123456789ABCDEF"

// isARKUnreserved reports whether c is in the draft's ARK-unreserved set:
// digits, letters and "= ~ * + @ _ $". Percent-encodings of these are
// decoded during normalization.
func isARKUnreserved(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '=', '~', '*', '+', '@', '_', '$':
		return true
	}
	return false
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isBetanumericLetter reports whether c is one of the consonants that ARK
// shoulders are made of (the first-digit convention): no vowels, no "l".
func isBetanumericLetter(c byte) bool {
	switch c {
	case 'b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'm', 'n', 'p', 'q', 'r', 's', 't', 'v', 'w', 'x', 'z':
		return true
	}
	return false
}

func isASCIIControl(c byte) bool { return c < 0x20 || c == 0x7f }

func isStructural(c byte) bool { return c == '/' || c == '.' }

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodePercent decodes the "%XX" at s[i:]. ok is false when s[i:] does not
// start with a valid triplet.
func decodePercent(s string, i int) (b byte, ok bool) {
	if i+2 >= len(s) {
		return 0, false
	}
	hi, ok1 := unhex(s[i+1])
	lo, ok2 := unhex(s[i+2])
	return hi<<4 | lo, ok1 && ok2
}

// isHyphenLookalike reports whether r is one of U+2010 to U+2015 (hyphen,
// non-breaking hyphen, figure dash, en dash, em dash, horizontal bar), which
// text formatting substitutes for "-" and which are deleted like it.
func isHyphenLookalike(r rune) bool { return r >= 0x2010 && r <= 0x2015 }

// checkRune refuses control and bidirectional formatting characters.
func checkRune(r rune, offset int) error {
	switch {
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return refuse(ErrControl, offset, "control character "+quoteRune(r)+" is not allowed")
	case unicode.Is(unicode.Bidi_Control, r):
		return refuse(ErrBidi, offset, "bidirectional formatting character "+quoteRune(r)+" is not allowed")
	}
	return nil
}

func quoteRune(r rune) string { return fmt.Sprintf("U+%04X", r) }

// pctRun is a run of percent-encoded octets of 0x80 and above: the UTF-8
// bytes of one or more non-ASCII characters.
type pctRun struct {
	bytes []byte // the decoded octets
	end   int    // offset just past the run in the input
}

// readPctRun decodes the run of "%XX" triplets (each >= 0x80) starting at
// s[i:], appending the octets to buf. With skipHyphens (ARKs), hyphens and
// their look-alikes, raw or encoded, between the triplets belong to the run
// and are dropped: ARKs delete them anyway, and they must not keep apart the
// octets of one character. In a URN a hyphen is significant and ends the
// run.
func readPctRun(s string, i int, buf []byte, skipHyphens bool) pctRun {
	end := i
	for i < len(s) {
		if !skipHyphens {
			b, ok := decodePercent(s, i)
			if !ok || s[i] != '%' || b < 0x80 {
				break
			}
			buf = append(buf, b)
			i += 3
			end = i
			continue
		}
		if s[i] == '-' {
			i++
			continue
		}
		if r, size := utf8.DecodeRuneInString(s[i:]); isHyphenLookalike(r) {
			i += size
			continue
		}
		b, ok := decodePercent(s, i)
		switch {
		case !ok || s[i] != '%':
			return pctRun{bytes: buf, end: end}
		case b == '-':
			i += 3
			continue
		case b < 0x80:
			return pctRun{bytes: buf, end: end}
		}
		buf = append(buf, b)
		i += 3
		end = i
	}
	return pctRun{bytes: buf, end: end}
}

func quoteASCII(c byte) string { return strconv.QuoteRune(rune(c)) }

// checkEncoded validates the percent-encoding at s[i:] and, for a run that
// encodes non-ASCII characters, refuses control and bidi characters. It
// returns the offset after the triplet or run.
func checkEncoded(s string, i int) (int, error) {
	c, ok := decodePercent(s, i)
	if !ok {
		return 0, refuse(ErrPercentEncoding, i, strconv.Quote(s[i:min(i+3, len(s))])+" is not %XX with two hex digits")
	}
	if c < 0x80 {
		if isASCIIControl(c) {
			return 0, checkRune(rune(c), i)
		}
		return i + 3, nil
	}
	run := readPctRun(s, i, nil, false)
	at := i
	for p := run.bytes; len(p) > 0; {
		r, size := utf8.DecodeRune(p)
		if r != utf8.RuneError || size > 1 {
			if err := checkRune(r, at); err != nil {
				return 0, err
			}
		}
		p, at = p[size:], at+3*size
	}
	return run.end, nil
}

// checkRaw validates the raw UTF-8 character at s[i:], refusing invalid
// UTF-8, control and bidi characters, and returns the offset after it.
func checkRaw(s string, i int) (int, error) {
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		return 0, refuse(ErrNotIdentifier, i, "invalid UTF-8")
	}
	return i + size, checkRune(r, i)
}
