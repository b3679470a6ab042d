package download

import (
	"bufio"
	"io"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

// anvlWriter writes EZID's ANVL download format: a record is a header
// line ":: <identifier>" and its elements as the get metadata operation
// writes them (anvl.AppendElement), records separated by a blank line.
type anvlWriter struct {
	w     *bufio.Writer
	buf   []byte
	wrote bool
}

func (aw *anvlWriter) Write(r *anvl.Record) error {
	aw.buf = aw.buf[:0]
	if aw.wrote {
		aw.buf = append(aw.buf, '\n')
	}
	aw.wrote = true
	aw.buf = append(aw.buf, ":: "...)
	aw.buf = append(aw.buf, r.ID...)
	aw.buf = append(aw.buf, '\n')
	for _, e := range r.Elements {
		aw.buf = anvl.AppendElement(aw.buf, e.Name, e.Value)
	}
	_, err := aw.w.Write(aw.buf)
	return err
}

func (aw *anvlWriter) Close() error { return aw.w.Flush() }

// newANVLWriter returns a writer of the ANVL format to w.
func newANVLWriter(w io.Writer) *anvlWriter {
	return &anvlWriter{w: bufio.NewWriter(w)}
}
