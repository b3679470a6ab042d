package download

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

// ReadXML reads EZID's XML format, calling fn with each record in turn,
// until fn returns an error, which ReadXML returns. An element whose
// content is XML (a whole-record datacite or crossref document, which
// EZID embeds) is read as that XML, written as it is in the source; any
// other value is its text. Values are trimmed of white space at both
// ends, which EZID holds insignificant. A document that is not EZID's
// format is an error naming its line.
func ReadXML(r io.Reader, fn func(*anvl.Record) error) error {
	src := &recordingReader{r: bufio.NewReaderSize(r, 64<<10)}
	d := xml.NewDecoder(src)
	var (
		rec     *anvl.Record
		name    string // of the <element> being read
		inElem  bool
		depth   int // inside <element>: of its child elements
		text    strings.Builder
		raw     bool // the element has child elements: its value is raw XML
		records bool // inside <records>
		seen    bool // <records> was there
	)
	fail := func(format string, args ...any) error {
		line, _ := d.InputPos()
		return &SyntaxError{Line: line, Err: fmt.Errorf(format, args...)}
	}
	for {
		before := d.InputOffset()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if !seen {
				return fail("no <records> element: not EZID's XML download format")
			}
			return nil
		}
		if err != nil {
			line, _ := d.InputPos()
			return &SyntaxError{Line: line, Err: err}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case inElem:
				raw = true
				depth++
			case rec != nil:
				if t.Name.Local != "element" {
					return fail("<%s> in a <record>: only <element name=\"…\"> may be there", t.Name.Local)
				}
				name, _ = attr(t, "name")
				if strings.TrimSpace(name) == "" {
					return fail(`an <element> without a name in the record of %s`, rec.ID)
				}
				inElem, raw, depth = true, false, 0
				text.Reset()
				src.record(d.InputOffset())
			case records:
				if t.Name.Local != "record" {
					return fail("<%s> in <records>: only <record identifier=\"…\"> may be there", t.Name.Local)
				}
				id, ok := attr(t, "identifier")
				if !ok || strings.TrimSpace(id) == "" {
					return fail("a <record> without an identifier")
				}
				line, _ := d.InputPos()
				rec = &anvl.Record{ID: strings.TrimSpace(id), Line: line}
			case t.Name.Local == "records" && !seen:
				records, seen = true, true
			default:
				return fail("<%s>: EZID's XML download is a <records> document", t.Name.Local)
			}
		case xml.EndElement:
			switch {
			case inElem && depth > 0:
				depth--
			case inElem:
				v := text.String()
				if content := src.take(before); raw {
					v = string(content)
				}
				rec.Elements = append(rec.Elements, anvl.Element{Name: strings.TrimSpace(name), Value: strings.TrimSpace(v)})
				inElem = false
			case rec != nil:
				if err := fn(rec); err != nil {
					return err
				}
				rec = nil
			case records:
				records = false
			}
		case xml.CharData:
			switch {
			case inElem && !raw:
				text.Write(t)
			case !inElem && len(strings.TrimSpace(string(t))) > 0:
				return fail("text outside an <element>: %q", strings.TrimSpace(string(t)))
			}
		}
	}
}

// attr returns the value of the attribute name of t.
func attr(t xml.StartElement, name string) (string, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value, true
		}
	}
	return "", false
}

// SyntaxError is a source that cannot be read as its format, at a line.
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *SyntaxError) Unwrap() error { return e.Err }

// recordingReader reads from r a byte at a time for an xml.Decoder (which
// then does no buffering of its own: its InputOffset is where this
// reader is, less a byte it may have read ahead), and keeps the bytes
// read since record was called, so that an element's content can be
// taken as it is written. It holds one element's content at a time.
type recordingReader struct {
	r    *bufio.Reader
	off  int64 // bytes read
	last byte  // the last of them
	on   bool
	from int64 // the offset of buf[0]
	buf  []byte
}

func (rr *recordingReader) ReadByte() (byte, error) {
	c, err := rr.r.ReadByte()
	if err == nil {
		if rr.on {
			rr.buf = append(rr.buf, c)
		}
		rr.off++
		rr.last = c
	}
	return c, err
}

func (rr *recordingReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c, err := rr.ReadByte()
	if err != nil {
		return 0, err
	}
	p[0] = c
	return 1, nil
}

// record starts keeping the bytes from offset from: what is read next,
// or the byte read last when the decoder has read it ahead.
func (rr *recordingReader) record(from int64) {
	rr.on, rr.from, rr.buf = true, from, rr.buf[:0]
	if from == rr.off-1 {
		rr.buf = append(rr.buf, rr.last)
	}
}

// take stops keeping and returns the bytes kept from the offset given to
// record up to the offset to.
func (rr *recordingReader) take(to int64) []byte {
	rr.on = false
	if n := to - rr.from; n >= 0 && n <= int64(len(rr.buf)) {
		return rr.buf[:n]
	}
	return nil
}
