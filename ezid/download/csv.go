package download

import (
	"encoding/csv"
	"io"
	"strings"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

// csvWriter writes EZID's CSV format: a header row of the requested
// columns, then a row a record, as Excel reads CSV (RFC 4180, CRLF line
// ends). Line breaks and other white space in values become spaces, as
// EZID writes them.
type csvWriter struct {
	w       *csv.Writer
	columns []string
	row     []string
}

func newCSVWriter(w io.Writer, columns []string) (*csvWriter, error) {
	cw := &csvWriter{w: csv.NewWriter(w), columns: columns, row: make([]string, len(columns))}
	cw.w.UseCRLF = true
	for i, c := range columns {
		cw.row[i] = oneLine(c)
	}
	return cw, cw.w.Write(cw.row)
}

func (cw *csvWriter) Write(r *anvl.Record) error {
	for i, c := range cw.columns {
		var v string
		switch {
		case c == "_id":
			v = r.ID
		case mappedColumns[c] != nil:
			v = mapped(r, c)
		default:
			v = get(r, c)
		}
		cw.row[i] = oneLine(v)
	}
	return cw.w.Write(cw.row)
}

func (cw *csvWriter) Close() error {
	cw.w.Flush()
	return cw.w.Error()
}

// oneLine replaces each white-space character of s (line breaks, tabs)
// with a space, as EZID's CSV does.
func oneLine(s string) string {
	if strings.IndexFunc(s, isBreak) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isBreak(r) {
			return ' '
		}
		return r
	}, s)
}

// isBreak reports whether r is white space other than the space.
func isBreak(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}
