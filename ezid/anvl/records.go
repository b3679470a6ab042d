package anvl

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Record is one identifier's block of an EZID ANVL download: the
// identifier of its header line (":: ark:/12345/x5wf6789") and its
// elements.
type Record struct {
	ID       string
	Elements []Element
	Line     int // the line of the header, 1-based
}

// Records reads the ANVL format of EZID's batch download: blocks
// separated by blank lines, each a header line of two colons and the
// identifier, then the identifier's elements as Parse reads them. It
// reads one block at a time, so a download of any size takes the memory
// of its largest block.
type Records struct {
	sc   *bufio.Scanner
	line int
	rec  Record
	err  error
}

// maxRecordLine bounds one line of a download: an element with a
// whole-record XML value is one line.
const maxRecordLine = 16 << 20

// NewRecords returns a reader of the blocks of r.
func NewRecords(r io.Reader) *Records {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxRecordLine)
	sc.Split(splitLines)
	return &Records{sc: sc}
}

// Next reads the next block; it returns false at the end of the input or
// at an error, which Err then returns.
func (rs *Records) Next() bool {
	if rs.err != nil {
		return false
	}
	rs.rec = Record{}
	var p parser
	for rs.sc.Scan() {
		rs.line++
		l := rs.sc.Text()
		if !utf8.ValidString(l) {
			rs.err = rs.errorf(ErrEncoding)
			return false
		}
		if rs.rec.Line == 0 {
			if strings.TrimSpace(l) == "" || l[0] == '#' {
				continue
			}
			id, ok := strings.CutPrefix(l, "::")
			if !ok || strings.TrimSpace(id) == "" {
				rs.err = rs.errorf(errNotAHeaderLine)
				return false
			}
			rs.rec.ID, rs.rec.Line = strings.TrimSpace(id), rs.line
			continue
		}
		if l == "" {
			break
		}
		if err := p.line(l); err != nil {
			rs.err = rs.errorf(err)
			return false
		}
	}
	if err := rs.sc.Err(); err != nil {
		rs.err = fmt.Errorf("line %d: %w", rs.line+1, err)
		return false
	}
	rs.rec.Elements = p.elems
	return rs.rec.Line != 0
}

// Record returns the block that Next read.
func (rs *Records) Record() Record { return rs.rec }

// Err returns the error that stopped Next, nil at the end of the input.
func (rs *Records) Err() error { return rs.err }

// errorf names the line of err.
func (rs *Records) errorf(err error) error {
	return fmt.Errorf("line %d: %w", rs.line, err)
}

// splitLines splits at LF, CR LF or CR, as Parse does.
func splitLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	for i, c := range data {
		switch c {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // a CR LF may be split across reads
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
