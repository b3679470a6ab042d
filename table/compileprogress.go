package table

import "io"

// CompileProgress is how far a compile has got.
type CompileProgress struct {
	// Phase is "read", "check", "sort", "index" or "write".
	Phase string
	// Done counts what the phase has done: bytes of the table files for
	// "read", entries for "check" and "sort", slots for "index", bytes
	// written after the index for "write".
	Done int64
	// Total is what Done counts up to.
	Total int64
	// Entries is how many entries have been read so far.
	Entries int64
	// End is set on the phase's last call, where Done is what it did.
	End bool
}

// progressEvery is how many entries pass between two progress calls.
const progressEvery = 1 << 16

// progressBytes is how many bytes are written between two progress calls.
const progressBytes = 4 << 20

// progress reports how far the compile has got, if asked to.
func (c *compiler) progress(phase string, done, total int64) {
	if c.opts.Progress != nil {
		c.opts.Progress(CompileProgress{Phase: phase, Done: done, Total: total, Entries: int64(c.count)})
	}
}

// phaseEnd reports that a phase is over, having done done.
func (c *compiler) phaseEnd(phase string, done int64) {
	if c.opts.Progress != nil {
		c.opts.Progress(CompileProgress{Phase: phase, Done: done, Total: done, Entries: int64(c.count), End: true})
	}
}

// countingReader adds the bytes read from r to *n.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// progressWriter writes to w and calls report every progressBytes.
type progressWriter struct {
	w      io.Writer
	n      int64 // bytes written
	total  int64 // bytes to write
	report func(n, total int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	before := p.n
	p.n += int64(n)
	if p.n/progressBytes != before/progressBytes {
		p.report(p.n, p.total)
	}
	return n, err
}
