package table

// readAheadWindow is how far ahead of a pass that reads a section in order
// the kernel is asked to read: enough to keep a disk streaming, little
// enough not to crowd the page cache.
const readAheadWindow = 4 << 20

// readAheadStep is how much one request for read-ahead asks for. The
// kernel reads at most the device's read-ahead (read_ahead_kb, often
// 128 KiB) or its largest I/O per request and ignores the rest, so the
// window is asked for in steps no larger than that.
const readAheadStep = 128 << 10

// readAhead asks for read-ahead on behalf of a pass that reads a section
// of a mapping in order: the mapping is advised random access (mapFile),
// so that lookups read only the pages they touch, and without it each
// page fault of the pass would wait for one page from disk.
type readAhead struct {
	data     []byte // the whole mapping
	end      int    // where the section ends in data
	askedTil int    // read-ahead was asked for up to here
}

// newReadAhead returns a readAhead for data[from:to].
func newReadAhead(data []byte, from, to int) *readAhead {
	return &readAhead{data: data, end: to, askedTil: from}
}

// reach tells r that the pass has come to offset off of the mapping:
// once it is within half a window of what was asked for, read-ahead is
// asked for up to a window ahead of it.
func (r *readAhead) reach(off int) {
	if off+readAheadWindow/2 < r.askedTil || r.askedTil >= r.end {
		return
	}
	to := min(off+readAheadWindow, r.end)
	for from := max(r.askedTil, off); from < to; from += readAheadStep {
		willNeed(r.data, from, min(from+readAheadStep, to))
	}
	r.askedTil = to
}
