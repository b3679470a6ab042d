package table

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
)

// spillEntry is what the compiler keeps of an entry while sorting.
type spillEntry struct {
	hash uint64
	idx  uint32 // position among all entries read, or record number
}

// spillEntrySize is the bytes of a spillEntry in a run file.
const spillEntrySize = 12

// byHash orders entries by hash, then position: the order in which the
// index inserts them.
func byHash(x, y spillEntry) int {
	if x.hash != y.hash {
		if x.hash < y.hash {
			return -1
		}
		return 1
	}
	return int(x.idx) - int(y.idx)
}

// runSorter is an external sort of spillEntries: it sorts them in a
// buffer of bounded size, writes each full buffer to a file as a sorted
// run, and merges the runs, so that its memory does not grow with the
// number of entries.
type runSorter struct {
	file *os.File // the runs, one after another
	w    *bufio.Writer
	buf  []spillEntry
	max  int // entries the buffer may hold
	cmp  func(x, y spillEntry) int
	ends []int64 // where each run ends, in entries
	n    int64   // entries written
}

// newRunSorter returns a sorter ordering by cmp, whose runs are a file in
// dir, and whose buffer, buf, may grow to max entries.
func newRunSorter(dir string, buf []spillEntry, max int, cmp func(x, y spillEntry) int) (*runSorter, error) {
	f, err := os.CreateTemp(dir, ".ark-compile-runs-*")
	if err != nil {
		return nil, err
	}
	return &runSorter{file: f, w: bufio.NewWriterSize(f, 1<<16), buf: buf[:0], max: max, cmp: cmp}, nil
}

// close removes the sorter's file.
func (s *runSorter) close() { removeTemp(s.file) }

// add adds e, writing a run when the buffer is full.
func (s *runSorter) add(e spillEntry) error {
	if len(s.buf) == cap(s.buf) {
		if cap(s.buf) >= s.max {
			if err := s.flush(); err != nil {
				return err
			}
		} else {
			s.buf = slices.Grow(s.buf, min(max(cap(s.buf), 1024), s.max-cap(s.buf)))
		}
	}
	s.buf = append(s.buf, e)
	return nil
}

// flush sorts the buffer and writes it as a run.
func (s *runSorter) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	slices.SortFunc(s.buf, s.cmp)
	var b [spillEntrySize]byte
	for _, e := range s.buf {
		binary.LittleEndian.PutUint64(b[:], e.hash)
		binary.LittleEndian.PutUint32(b[8:], e.idx)
		if _, err := s.w.Write(b[:]); err != nil {
			return err
		}
	}
	s.n += int64(len(s.buf))
	s.ends = append(s.ends, s.n)
	s.buf = s.buf[:0]
	return s.w.Flush()
}

// finish writes the last run and returns the buffer, for another sorter
// to use.
func (s *runSorter) finish() ([]spillEntry, error) {
	err := s.flush()
	buf := s.buf
	s.buf = nil
	return buf, err
}

// errStopMerge stops a merge early without error.
var errStopMerge = errors.New("stop")

// merge calls fn with every entry of the runs, in order, reading each
// run through a buffer of about memory/runs bytes. fn returning
// errStopMerge ends the merge with no error; merge may be called again.
func (s *runSorter) merge(memory int64, fn func(spillEntry) error) error {
	bufSize := int(min(max(memory/int64(max(len(s.ends), 1)), 4096), 1<<20))
	h := &runHeap{cmp: s.cmp}
	start := int64(0)
	for _, end := range s.ends {
		r := &runReader{r: bufio.NewReaderSize(io.NewSectionReader(s.file, start*spillEntrySize, (end-start)*spillEntrySize), bufSize)}
		start = end
		if ok, err := r.next(); err != nil {
			return err
		} else if ok {
			h.runs = append(h.runs, r)
		}
	}
	heap.Init(h)
	for len(h.runs) > 0 {
		r := h.runs[0]
		if err := fn(r.e); err == errStopMerge {
			return nil
		} else if err != nil {
			return err
		}
		if ok, err := r.next(); err != nil {
			return err
		} else if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

// runReader reads one run.
type runReader struct {
	r *bufio.Reader
	e spillEntry // the entry read last
	b [spillEntrySize]byte
}

// next reads the next entry, reporting false at the end of the run.
func (r *runReader) next() (bool, error) {
	if _, err := io.ReadFull(r.r, r.b[:]); err == io.EOF {
		return false, nil
	} else if err != nil {
		return false, err
	}
	r.e = spillEntry{hash: binary.LittleEndian.Uint64(r.b[:]), idx: binary.LittleEndian.Uint32(r.b[8:])}
	return true, nil
}

// runHeap is the runs being merged, by their current entries.
type runHeap struct {
	runs []*runReader
	cmp  func(x, y spillEntry) int
}

func (h *runHeap) Len() int           { return len(h.runs) }
func (h *runHeap) Less(i, j int) bool { return h.cmp(h.runs[i].e, h.runs[j].e) < 0 }
func (h *runHeap) Swap(i, j int)      { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *runHeap) Push(x any)         { h.runs = append(h.runs, x.(*runReader)) }
func (h *runHeap) Pop() any {
	r := h.runs[len(h.runs)-1]
	h.runs = h.runs[:len(h.runs)-1]
	return r
}

// entryHeap is a min-heap of entries by hash and position. It is not a
// heap.Interface, whose Push and Pop would allocate for every entry.
type entryHeap []spillEntry

// push adds e.
func (h *entryHeap) push(e spillEntry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if byHash(s[p], s[i]) <= 0 {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

// pop removes and returns the least entry; h is not empty.
func (h *entryHeap) pop() spillEntry {
	s := *h
	e := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < n && byHash(s[l], s[m]) < 0 {
			m = l
		}
		if r < n && byHash(s[r], s[m]) < 0 {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return e
}
