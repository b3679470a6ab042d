package table

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Reader reads the table format {"entries": [ {...}, ... ]} from a
// stream, one entry at a time, counting lines for error messages. It reads
// this one shape of JSON only: encoding/json's Decoder spends about ten
// times as long per entry, which matters at millions of entries.
type Reader struct {
	r        io.Reader
	buf      []byte
	pos, end int
	Line     int
	readErr  error  // from r; io.EOF at the end
	scratch  []byte // the last string read
}

// NewReader returns a streaming reader of the table file r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, buf: make([]byte, 1<<16), Line: 1}
}

// errSyntax is wrapped by every syntax error, which says what was expected.
var errSyntax = errors.New("invalid JSON")

func (tr *Reader) syntaxError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errSyntax}, args...)...)
}

// fill reads more input; it reports false at the end or on a read error.
func (tr *Reader) fill() bool {
	if tr.readErr != nil {
		return false
	}
	n := copy(tr.buf, tr.buf[tr.pos:tr.end])
	tr.pos, tr.end = 0, n
	for tr.end == n {
		m, err := tr.r.Read(tr.buf[tr.end:])
		tr.end += m
		if err != nil {
			tr.readErr = err
			break
		}
	}
	return tr.end > tr.pos
}

// peek returns the next byte that is not white space, without consuming it.
func (tr *Reader) peek() (byte, error) {
	for {
		for tr.pos < tr.end {
			switch c := tr.buf[tr.pos]; c {
			case '\n':
				tr.Line++
				fallthrough
			case ' ', '\t', '\r':
				tr.pos++
			default:
				return c, nil
			}
		}
		if !tr.fill() {
			return 0, tr.endError()
		}
	}
}

// endError is the error for input that stops where more was needed.
func (tr *Reader) endError() error {
	if tr.readErr != nil && tr.readErr != io.EOF {
		return tr.readErr
	}
	return tr.syntaxError("unexpected end of file")
}

// expect consumes the next non-space byte, which must be c.
func (tr *Reader) expect(c byte) error {
	got, err := tr.peek()
	if err != nil {
		return err
	}
	if got != c {
		return tr.syntaxError("expected %q, found %q", c, got)
	}
	tr.pos++
	return nil
}

// more consumes a "," and reports true, or reports false before close.
func (tr *Reader) more(close byte, first bool) (bool, error) {
	c, err := tr.peek()
	if err != nil {
		return false, err
	}
	switch {
	case c == close:
		tr.pos++
		return false, nil
	case first:
		return true, nil
	case c == ',':
		tr.pos++
		return true, nil
	}
	return false, tr.syntaxError("expected ',' or %q, found %q", close, c)
}

// str reads a JSON string of at most limit bytes, decoded, into tr.scratch
// and returns it; the slice is valid until the next read. A longer string
// is refused as soon as it is known to be too long, so memory stays
// bounded whatever the file holds.
func (tr *Reader) str(limit int) ([]byte, error) {
	if err := tr.expect('"'); err != nil {
		return nil, err
	}
	tr.scratch = tr.scratch[:0]
	for {
		start := tr.pos
		for tr.pos < tr.end {
			c := tr.buf[tr.pos]
			if c == '"' {
				tr.scratch = append(tr.scratch, tr.buf[start:tr.pos]...)
				tr.pos++
				if len(tr.scratch) > limit {
					return nil, errTooLong{limit}
				}
				return tr.scratch, nil
			}
			if c == '\\' || c < 0x20 {
				break
			}
			tr.pos++
		}
		tr.scratch = append(tr.scratch, tr.buf[start:tr.pos]...)
		if len(tr.scratch) > limit {
			return nil, errTooLong{limit}
		}
		if tr.pos == tr.end {
			if !tr.fill() {
				return nil, tr.endError()
			}
			continue
		}
		if tr.buf[tr.pos] < 0x20 {
			return nil, tr.syntaxError("control character in a string")
		}
		if err := tr.escape(); err != nil {
			return nil, err
		}
	}
}

// errTooLong refuses a string longer than its limit.
type errTooLong struct{ limit int }

func (e errTooLong) Error() string { return fmt.Sprintf("longer than %d bytes", e.limit) }

// maxKeyBytes bounds the keys of the table object and of entries, which
// are all short words.
const maxKeyBytes = 64

// tableFormat says what a table file holds, for errors about its shape.
const tableFormat = `a table is a JSON object {"entries": [...]} holding a list of entries, and nothing else`

// escape decodes the escape sequence at the reader's position.
func (tr *Reader) escape() error {
	if err := tr.need(2); err != nil {
		return err
	}
	c := tr.buf[tr.pos+1]
	tr.pos += 2
	switch c {
	case '"', '\\', '/':
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		return tr.unicodeEscape()
	default:
		return tr.syntaxError("invalid escape \\%c in a string", c)
	}
	tr.scratch = append(tr.scratch, c)
	return nil
}

// unicodeEscape decodes the hex digits of a \u escape and, for a
// surrogate pair, the \u escape after it.
func (tr *Reader) unicodeEscape() error {
	if err := tr.need(4); err != nil {
		return err
	}
	r, ok := hex4(tr.buf[tr.pos : tr.pos+4])
	if !ok {
		return tr.syntaxError("invalid \\u escape")
	}
	tr.pos += 4
	if utf16.IsSurrogate(r) {
		// As in encoding/json: a surrogate pair is one code point; any
		// other surrogate is U+FFFD, and what follows it is read anew.
		pair := utf8.RuneError
		if tr.need(6) == nil && tr.buf[tr.pos] == '\\' && tr.buf[tr.pos+1] == 'u' {
			if low, ok := hex4(tr.buf[tr.pos+2 : tr.pos+6]); ok {
				pair = utf16.DecodeRune(r, low)
			}
		}
		if pair != utf8.RuneError {
			tr.pos += 6
		}
		r = pair
	}
	tr.scratch = utf8.AppendRune(tr.scratch, r)
	return nil
}

// need makes sure n bytes are buffered.
func (tr *Reader) need(n int) error {
	for tr.end-tr.pos < n {
		if !tr.fill() {
			return tr.endError()
		}
	}
	return nil
}

// hex4 decodes the four hexadecimal digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// word reads the run of letters, digits, '-', '+' and '.' at the reader's
// position: a number or a literal.
func (tr *Reader) word() (string, error) {
	c, err := tr.peek()
	if err != nil {
		return "", err
	}
	if !isWordByte(c) {
		return "", tr.syntaxError("expected a number, true, false or null, found %q", c)
	}
	var w []byte
	for {
		for tr.pos < tr.end {
			c := tr.buf[tr.pos]
			if !isWordByte(c) {
				return string(w), nil
			}
			w = append(w, c)
			tr.pos++
		}
		if !tr.fill() {
			return string(w), nil
		}
	}
}

// entry reads one entry object into e.
func (tr *Reader) entry(e *Entry) error {
	if err := tr.expect('{'); err != nil {
		return err
	}
	var seen [len(entryFields)]bool
	for first := true; ; first = false {
		more, err := tr.more('}', first)
		if err != nil || !more {
			return err
		}
		key, err := tr.str(maxKeyBytes)
		if err != nil {
			return err
		}
		field := string(key)
		if i := slices.Index(entryFields[:], field); i >= 0 {
			if seen[i] {
				return fmt.Errorf("%q appears twice in the entry: a repeated key is refused, so that the table means what its reader sees", field)
			}
			seen[i] = true
		}
		if err := tr.expect(':'); err != nil {
			return err
		}
		if err := tr.field(e, field); err != nil {
			return err
		}
	}
}

// entryFields are the keys of an entry object.
var entryFields = [...]string{"id", "target", "status", "passthrough", "meta"}

// field reads the value of one entry field. null leaves target and status
// as they are and unsets passthrough and meta, as encoding/json does.
func (tr *Reader) field(e *Entry, field string) error {
	switch field {
	case "id":
		s, err := tr.str(MaxIDBytes)
		if err != nil {
			return fmt.Errorf("id: %w", err)
		}
		e.ID = string(s)
	case "target":
		null, err := tr.null()
		if err != nil {
			return fmt.Errorf("target: %w", err)
		}
		if null {
			return nil
		}
		s, err := tr.str(MaxTargetBytes)
		if err != nil {
			return fmt.Errorf("target: %w", err)
		}
		e.Target = string(s)
	case "status":
		w, err := tr.word()
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		if w == "null" {
			return nil
		}
		if !isJSONInteger(w) {
			return fmt.Errorf("status %q: not an integer (write digits only, as in 302)", w)
		}
		if e.Status, err = strconv.Atoi(w); err != nil {
			return fmt.Errorf("status %q: out of range", w)
		}
	case "passthrough":
		w, err := tr.word()
		if err != nil {
			return fmt.Errorf("passthrough: %w", err)
		}
		switch w {
		case "null":
			e.Passthrough = nil
		case "true", "false":
			on := w == "true"
			e.Passthrough = &on
		default:
			return fmt.Errorf("passthrough %q: not true or false", w)
		}
	case "meta":
		null, err := tr.null()
		if err != nil {
			return fmt.Errorf("meta: %w", err)
		}
		if null {
			e.Meta = nil
			return nil
		}
		return tr.meta(e)
	default:
		return fmt.Errorf("unknown field %q (an entry has id, target, status, passthrough and meta)", field)
	}
	return nil
}

// null consumes a null and reports true, or reports false and consumes
// nothing when the next value is something else.
func (tr *Reader) null() (bool, error) {
	if c, err := tr.peek(); err != nil || c != 'n' {
		return false, err
	}
	w, err := tr.word()
	if err != nil {
		return false, err
	}
	if w != "null" {
		return false, tr.syntaxError("expected a value, found %s", w)
	}
	return true, nil
}

// isJSONInteger reports whether w is an integer in JSON's grammar:
// -?(0|[1-9][0-9]*), without sign "+", leading zero, fraction or exponent.
func isJSONInteger(w string) bool {
	w = strings.TrimPrefix(w, "-")
	if w == "" || w[0] == '0' && len(w) > 1 {
		return false
	}
	for i := range len(w) {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// meta reads the metadata object: string keys and string values, within
// the limits on their number and sizes, each key once.
func (tr *Reader) meta(e *Entry) error {
	if err := tr.expect('{'); err != nil {
		return fmt.Errorf("meta: %w", err)
	}
	e.Meta = map[string]string{}
	for first := true; ; first = false {
		more, err := tr.more('}', first)
		if err != nil || !more {
			return err
		}
		if len(e.Meta) == MaxMetaKeys {
			return fmt.Errorf("meta: more than %d keys", MaxMetaKeys)
		}
		k, err := tr.str(MaxMetaKeyBytes)
		if err != nil {
			return fmt.Errorf("meta: a key: %w", err)
		}
		key := string(k)
		if _, dup := e.Meta[key]; dup {
			return fmt.Errorf("meta %q appears twice: a repeated key is refused, so that the table means what its reader sees", key)
		}
		if err := tr.expect(':'); err != nil {
			return err
		}
		if c, err := tr.peek(); err != nil || c != '"' {
			return fmt.Errorf("meta %q: the value must be a string", key)
		}
		v, err := tr.str(MaxMetaValueBytes)
		if err != nil {
			return fmt.Errorf("meta %q: %w", key, err)
		}
		e.Meta[key] = string(v)
	}
}

// Each reads the whole table, calling fn for every entry, and returns the
// number of entries, or on error the index of the entry at fault (-1 when
// outside the entries). Errors from fn are returned as they are; the caller
// adds the position.
func (tr *Reader) Each(fn func(e *Entry) error) (entry int, err error) {
	tr.skipBOM()
	if err := tr.start(); err != nil {
		return -1, err
	}
	i := 0
	for first := true; ; first = false {
		more, err := tr.more(']', first)
		if err != nil {
			return i, err
		}
		if !more {
			break
		}
		var e Entry
		if err := tr.entry(&e); err != nil {
			return i, err
		}
		if err := fn(&e); err != nil {
			return i, err
		}
		i++
	}
	if c, err := tr.peek(); err == nil && c == ',' {
		tr.pos++
		key, err := tr.str(maxKeyBytes)
		if err != nil {
			return -1, fmt.Errorf("found more after the entries: %s", tableFormat)
		}
		return -1, fmt.Errorf("found the key %q after \"entries\": %s", key, tableFormat)
	}
	if err := tr.expect('}'); err != nil {
		return -1, err
	}
	if _, err := tr.peek(); err == nil {
		return -1, errors.New("data after the table's closing brace")
	}
	return i, nil
}

// skipBOM skips a UTF-8 byte order mark at the start of the file, which
// spreadsheet exports write.
func (tr *Reader) skipBOM() {
	if tr.need(3) == nil && string(tr.buf[tr.pos:tr.pos+3]) == "\uFEFF" {
		tr.pos += 3
	}
}

// importHint ends the error for a file that is not JSON at all: it may be
// a list of identifiers of another form, which the import command reads.
const importHint = "a CSV or TSV file, an Apache RewriteMap or nginx map blocks become a table with `caddy ark import <file>` (see docs/importing.md)"

// start reads the table up to the first entry: {"entries": [. Anything
// else is refused with an error that says what a table is and what the
// file holds instead.
func (tr *Reader) start() error {
	c, err := tr.peek()
	switch {
	case errors.Is(err, errSyntax):
		return fmt.Errorf("the file is empty: %s", tableFormat)
	case err != nil:
		return err
	case c == '[':
		return fmt.Errorf("found a list, not an object: %s; write the list as the value of \"entries\"", tableFormat)
	case c != '{':
		return fmt.Errorf("found %q, not an object: %s; %s", c, tableFormat, importHint)
	}
	tr.pos++
	if c, err := tr.peek(); err == nil && c == '}' {
		return fmt.Errorf("found an empty object {}: %s", tableFormat)
	}
	key, err := tr.str(maxKeyBytes)
	if err != nil {
		return err
	}
	if string(key) != "entries" {
		return fmt.Errorf("found the key %q: %s", key, tableFormat)
	}
	if err := tr.expect(':'); err != nil {
		return err
	}
	if c, err := tr.peek(); err == nil && c != '[' {
		return fmt.Errorf("\"entries\" is not a list: %s", tableFormat)
	}
	return tr.expect('[')
}

// isWordByte reports whether c can be part of a JSON number or literal.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.'
}
