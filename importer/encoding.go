package importer

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// Encodings are the character encodings a source may be read in, by the
// name --encoding gives them; UTF-8 is the default.
var encodings = map[string]bool{"utf-8": false, "utf8": false, "latin1": true, "iso-8859-1": true}

// EncodingError is input that is not in the encoding it is read in: a
// byte sequence that is not UTF-8. Nothing is imported from such a source,
// so that no character is replaced by one it is not.
type EncodingError struct {
	Line, Column int  // 1-based; Column counts bytes
	Byte         byte // the first byte that is not UTF-8
}

func (e *EncodingError) Error() string {
	return fmt.Sprintf("byte 0x%02X (column %d) is not UTF-8: the source is refused rather than read with a replacement character; if it is Latin-1 (ISO-8859-1), give --encoding latin1", e.Byte, e.Column)
}

// decoder reads a source as UTF-8: it passes UTF-8 through, checking it,
// and decodes Latin-1, where each byte is the code point of its value.
type decoder struct {
	r      io.Reader
	latin1 bool
	raw    []byte // raw[:held] is a UTF-8 sequence cut by the end of a read
	held   int
	out    []byte // decoded and not yet returned
	line   int    // the line of the next byte of raw to check
	column int    // and its column, less one
	err    error  // returned once out is empty
}

func newDecoder(r io.Reader, latin1 bool) *decoder {
	return &decoder{r: r, latin1: latin1, raw: make([]byte, 32<<10), line: 1}
}

// Read returns decoded bytes; a sequence that is not UTF-8 ends the input
// with an *EncodingError, after the bytes before it.
func (d *decoder) Read(p []byte) (int, error) {
	for len(d.out) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		d.fill()
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

// fill reads once from the source into out.
func (d *decoder) fill() {
	n, err := d.r.Read(d.raw[d.held:])
	chunk := d.raw[:d.held+n]
	d.out, d.held = d.out[:0], 0
	i := 0
	for i < len(chunk) {
		c := chunk[i]
		d.column++
		if c == '\n' {
			d.line, d.column = d.line+1, 0
		}
		switch {
		case c < utf8.RuneSelf:
			d.out = append(d.out, c)
			i++
			continue
		case d.latin1:
			d.out = utf8.AppendRune(d.out, rune(c))
			i++
			continue
		case !utf8.FullRune(chunk[i:]) && err == nil:
			// The rest of the sequence comes with the next read.
			d.column--
			d.held = copy(d.raw, chunk[i:])
			i = len(chunk)
			continue
		}
		r, size := utf8.DecodeRune(chunk[i:])
		if r == utf8.RuneError && size == 1 {
			d.err = &EncodingError{Line: d.line, Column: d.column, Byte: c}
			return
		}
		d.out = append(d.out, chunk[i:i+size]...)
		d.column += size - 1
		i += size
	}
	if err != nil {
		d.err = err
	}
}
