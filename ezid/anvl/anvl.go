// Package anvl reads and writes the subset of ANVL (A Name-Value Language)
// that EZID's API speaks: one "name: value" element per line, names and
// values percent-encoded where they hold a structural character. It
// follows EZID's own server (CDLUC3/ezid, impl/anvl.py) where the API
// document (shared/specs/ezid-api-v2.rst, "Request & response bodies") is
// silent: what is an error, and how a continuation line joins.
package anvl

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Element is one element of an ANVL body: a name and its value, both
// percent-decoded and trimmed of white space.
type Element struct {
	Name  string
	Value string
}

// The errors of Parse, worded as EZID words them after "ANVL parse
// error (...)"; ErrEncoding is EZID's "character decoding error".
var (
	ErrNoColon        = errors.New("no colon in line")
	ErrEmptyLabel     = errors.New("empty label")
	ErrRepeatedLabel  = errors.New("repeated label")
	ErrContinuation   = errors.New("no previous label for continuation line")
	ErrPercentDecode  = errors.New("percent-decode error")
	ErrEncoding       = errors.New("character decoding error")
	errNotAHeaderLine = errors.New("a record's header line is \":: <identifier>\"")
)

// Parse reads an ANVL body as EZID's API reads a request's: lines end
// with LF, CR LF or CR; a line that starts with "#" is a comment; a line
// that starts with white space continues the previous element (the line
// break and the white space around it become one space); an empty line
// ends the element before it, so that no continuation may follow it.
// Names and values are percent-decoded (%XX, either case) and trimmed. A
// name may not be empty nor repeated. body must be UTF-8.
func Parse(body string) ([]Element, error) {
	if !utf8.ValidString(body) {
		return nil, ErrEncoding
	}
	var p parser
	for line := range lines(body) {
		if err := p.line(line); err != nil {
			return nil, err
		}
	}
	return p.elems, nil
}

// parser is the state of Parse: the elements so far, and whether the
// last line may be continued.
type parser struct {
	elems []Element
	seen  map[string]bool
	open  bool // the last element may be continued
}

// line reads one line (without its line break).
func (p *parser) line(l string) error {
	switch {
	case l == "":
		p.open = false
	case l[0] == '#':
	case startsWithSpace(l):
		if !p.open {
			return ErrContinuation
		}
		more, err := Decode(l)
		if err != nil {
			return err
		}
		if more = strings.TrimSpace(more); more != "" {
			last := &p.elems[len(p.elems)-1]
			if last.Value == "" {
				last.Value = more
			} else {
				last.Value += " " + more
			}
		}
	default:
		rawName, rawValue, ok := strings.Cut(l, ":")
		if !ok {
			return ErrNoColon
		}
		name, err := Decode(rawName)
		if err != nil {
			return err
		}
		value, err := Decode(rawValue)
		if err != nil {
			return err
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if name == "" {
			return ErrEmptyLabel
		}
		if p.seen == nil {
			p.seen = map[string]bool{}
		}
		if p.seen[name] {
			return ErrRepeatedLabel
		}
		p.seen[name] = true
		p.elems = append(p.elems, Element{Name: name, Value: value})
		p.open = true
	}
	return nil
}

// startsWithSpace reports whether l starts with a white space character,
// as Python's str.isspace says (EZID's test for a continuation line).
func startsWithSpace(l string) bool {
	r, _ := utf8.DecodeRuneInString(l)
	return unicode.IsSpace(r)
}

// lines yields the lines of s without their breaks: LF, CR LF or CR.
func lines(s string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for {
			i := strings.IndexAny(s, "\r\n")
			if i < 0 {
				yield(s)
				return
			}
			next := i + 1
			if s[i] == '\r' && next < len(s) && s[next] == '\n' {
				next++
			}
			if !yield(s[:i]) {
				return
			}
			s = s[next:]
		}
	}
}

// Decode percent-decodes s: each %XX (hexadecimal, either case) becomes
// the byte XX. A "%" not followed by two hexadecimal digits is
// ErrPercentDecode, and so is a decoded byte sequence that is not UTF-8
// (ErrEncoding).
func Decode(s string) (string, error) {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", ErrPercentDecode
		}
		b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
		s = s[i+3:]
		i = strings.IndexByte(s, '%')
	}
	b.WriteString(s)
	if !utf8.ValidString(b.String()) {
		return "", ErrEncoding
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
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
