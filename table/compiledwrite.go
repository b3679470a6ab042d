package table

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math/bits"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/caddy-ark/caddy-ark/internal/keyhash"
	"github.com/caddy-ark/caddy-ark/internal/osfile"
)

// CompileStats describes a compiled table that was written.
type CompileStats struct {
	Entries  int   // entries read, duplicates included
	Distinct int   // distinct keys written
	Size     int64 // bytes of the file
}

// DefaultCompileMemory is the memory Compile's sort buffers are sized
// for when CompileOptions.MaxMemory is zero.
const DefaultCompileMemory = 512 << 20

// CompileOptions tunes CompileWith.
type CompileOptions struct {
	// MaxMemory is the memory, in bytes, that compiling is sized for
	// whatever the number of entries: half of it is the sort buffer
	// (16 bytes per entry) and an eighth the buffers that merge the sorted
	// runs; the rest is left to the runtime. Zero is DefaultCompileMemory.
	// Duplicate entries also cost 1.5 bits per entry read.
	MaxMemory int64
	// TempDir is where the spill files and sorted runs are written; empty
	// is the output's directory. They take about the output's size plus
	// 12 bytes per entry, and are removed when compiling ends.
	TempDir string
	// Progress, when not nil, is called in each phase when it begins,
	// every few tens of thousands of entries or few MiB, and when it ends.
	Progress func(CompileProgress)
}

// compiler writes a compiled table from JSON table files without holding
// the table or its index in memory. The first pass streams every entry,
// checked and normalized as the JSON loader does, to two spill files
// (records and arena, in the compiled format) and the key's hash with
// the entry's position to sorted runs on disk. Merging the runs by hash
// brings equivalent identifiers together: they are compared on disk,
// duplicates dropped and conflicts refused as the loader refuses them.
// A second sort orders the kept entries by their home slot in the index,
// which is then written sequentially, and the spill files are copied
// into the output.
type compiler struct {
	paths    []string
	opts     CompileOptions
	tmp      string     // where the temporary files go
	starts   []int      // position of each file's first entry
	count    int        // entries read
	input    int64      // bytes of the files read so far
	size     int64      // bytes of the files
	runs     *runSorter // (hash, position) of every entry, by hash
	naans    map[string]struct{}
	records  *os.File // spilled records, compiledRecordSize bytes each
	arena    *os.File // spilled arena
	recW     *bufio.Writer
	arenaW   *bufio.Writer
	arenaLen uint64
}

// Compile compiles the JSON table files at paths into the compiled
// table out, through a temporary file renamed into place once complete,
// with the default options. Errors are those loading the files would give.
func Compile(paths []string, out string) (*CompileStats, error) {
	return CompileWith(paths, out, CompileOptions{})
}

// CompileWith is Compile with options. The file written depends only on
// the files read, not on the options.
func CompileWith(paths []string, out string, opts CompileOptions) (*CompileStats, error) {
	// The buffers are a few large allocations that live to the end; what
	// else is allocated is short-lived garbage, which the default
	// GOGC=100 would let grow to their size before collecting it.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	if opts.MaxMemory <= 0 {
		opts.MaxMemory = DefaultCompileMemory
	}
	c := &compiler{paths: paths, opts: opts, tmp: opts.TempDir, naans: map[string]struct{}{}}
	if c.tmp == "" {
		c.tmp = filepath.Dir(out)
	}
	var err error
	if c.records, err = os.CreateTemp(c.tmp, ".ark-compile-records-*"); err != nil {
		return nil, err
	}
	defer removeTemp(c.records)
	if c.arena, err = os.CreateTemp(c.tmp, ".ark-compile-arena-*"); err != nil {
		return nil, err
	}
	defer removeTemp(c.arena)
	c.recW, c.arenaW = bufio.NewWriterSize(c.records, 1<<20), bufio.NewWriterSize(c.arena, 1<<20)

	hint := 0
	for _, path := range paths {
		if fi, err := os.Stat(path); err == nil {
			hint += int(fi.Size() / bytesPerEntry)
		}
	}
	maxBuf := max(int(opts.MaxMemory/2/16), 16)
	if c.runs, err = newRunSorter(c.tmp, make([]spillEntry, 0, min(hint, maxBuf)), maxBuf, byHash); err != nil {
		return nil, err
	}
	defer c.runs.close()
	readErr := c.readAll()
	buf, err := c.runs.finish()
	if err := errors.Join(err, c.recW.Flush(), c.arenaW.Flush()); err != nil {
		return nil, err
	}
	skipped, err := c.dedupe()
	if err != nil {
		return nil, err
	}
	if readErr != nil {
		return nil, readErr
	}
	return c.write(out, skipped, buf)
}

// removeTemp closes and removes a spill file.
func removeTemp(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}

// readAll is the first pass: it spills every entry of every file.
func (c *compiler) readAll() error {
	for _, path := range c.paths {
		if fi, err := os.Stat(path); err == nil {
			c.size += fi.Size()
		}
	}
	c.progress("read", 0, c.size)
	for _, path := range c.paths {
		c.starts = append(c.starts, c.count)
		f, err := osfile.OpenRegular(path)
		if err != nil {
			return err
		}
		tr := NewReader(countingReader{f, &c.input})
		entry, err := tr.Each(c.add)
		f.Close()
		if err != nil {
			return &LoadError{File: path, Line: tr.Line, Entry: entry, Err: err}
		}
	}
	c.phaseEnd("read", c.input)
	return nil
}

// add checks and spills one entry.
func (c *compiler) add(e *Entry) error {
	key, naan, a, err := e.Compile()
	if err != nil {
		return err
	}
	if c.count == compiledMaxCount {
		return errors.New("too many entries")
	}
	rec, bytes := encodeCompiledRecord(c.arenaLen, key, &a)
	if _, err := c.recW.Write(rec); err != nil {
		return err
	}
	if _, err := c.arenaW.Write(bytes); err != nil {
		return err
	}
	c.arenaLen += uint64(len(bytes))
	if err := c.runs.add(spillEntry{hash: keyhash.String(key), idx: uint32(c.count)}); err != nil {
		return err
	}
	c.count++
	if c.count%progressEvery == 0 {
		c.progress("read", c.input, c.size)
	}
	if len(naan) > 255 {
		return errors.New("a NAAN longer than 255 bytes cannot be compiled")
	}
	if naan != "" {
		c.naans[naan] = struct{}{}
	}
	return nil
}

// encodeCompiledRecord returns the record of key with a, whose bytes start
// at off in the arena, and those bytes.
func encodeCompiledRecord(off uint64, key string, a *Assignment) (rec, bytes []byte) {
	bytes = append(append([]byte(key), a.Target...), encodeMeta(a.Meta)...)
	rec = make([]byte, CompiledRecordSize)
	binary.LittleEndian.PutUint64(rec, off)
	binary.LittleEndian.PutUint16(rec[8:], uint16(len(key)))
	binary.LittleEndian.PutUint16(rec[10:], uint16(len(a.Target)))
	binary.LittleEndian.PutUint32(rec[12:], uint32(len(bytes)-len(key)-len(a.Target)))
	binary.LittleEndian.PutUint16(rec[16:], uint16(a.Status))
	if a.Passthrough {
		binary.LittleEndian.PutUint16(rec[18:], 1)
	}
	crc := crc32.Update(crc32.Checksum(rec[:20], castagnoli), castagnoli, bytes)
	binary.LittleEndian.PutUint32(rec[20:], crc)
	return rec, bytes
}

// encodeMeta encodes metadata as a record holds it; nil is no bytes.
// The table reader's limits keep every length within its field.
func encodeMeta(meta map[string]string) []byte {
	if meta == nil {
		return nil
	}
	b := binary.LittleEndian.AppendUint16(nil, uint16(len(meta)))
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(k)))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(meta[k])))
		b = append(append(b, k...), meta[k]...)
	}
	return b
}

// spilled reads back entry idx from the spill files.
func (c *compiler) spilled(idx uint32) (key string, a *Assignment, err error) {
	rec := make([]byte, CompiledRecordSize)
	if _, err := c.records.ReadAt(rec, int64(idx)*CompiledRecordSize); err != nil {
		return "", nil, err
	}
	n := int(binary.LittleEndian.Uint16(rec[8:])) + int(binary.LittleEndian.Uint16(rec[10:])) + int(binary.LittleEndian.Uint32(rec[12:]))
	bytes := make([]byte, n)
	off := binary.LittleEndian.Uint64(rec)
	if _, err := c.arena.ReadAt(bytes, int64(off)); err != nil {
		return "", nil, err
	}
	r, ok := decodeCompiledRecord(rec, bytes, off)
	if !ok {
		return "", nil, errors.New("a spill file changed while compiling")
	}
	a, _ = r.assignment(nil)
	return string(r.key), a, nil
}

// skipSet is the positions of the entries dropped as duplicates: a bitmap
// and, once complete, the number of positions set before each word.
type skipSet struct {
	words []uint64
	ranks []uint32
	n     int
}

// add adds idx to s, which holds positions below count.
func (s *skipSet) add(idx uint32, count int) {
	if s.words == nil {
		s.words = make([]uint64, (count+63)/64)
	}
	s.words[idx/64] |= 1 << (idx % 64)
	s.n++
}

// has reports whether s holds idx.
func (s *skipSet) has(idx uint32) bool {
	return s.words != nil && s.words[idx/64]&(1<<(idx%64)) != 0
}

// complete counts the positions before each word, for rank.
func (s *skipSet) complete() {
	s.ranks = make([]uint32, len(s.words))
	n := 0
	for i, w := range s.words {
		s.ranks[i] = uint32(n)
		n += bits.OnesCount64(w)
	}
}

// rank returns how many positions below idx s holds.
func (s *skipSet) rank(idx uint32) uint32 {
	if s.words == nil {
		return 0
	}
	return s.ranks[idx/64] + uint32(bits.OnesCount64(s.words[idx/64]&(1<<(idx%64)-1)))
}

// dedupe merges the entries by hash and compares those whose hashes are
// equal: an identifier already there with the same assignment is dropped,
// one with another assignment is the first conflict the loader would
// have met. It returns the dropped positions.
func (c *compiler) dedupe() (*skipSet, error) {
	type kept struct {
		key string
		a   *Assignment
		idx uint32
	}
	skipped := &skipSet{}
	conflict, first := uint32(compiledMaxCount+1), uint32(0)
	// The entries of a hash group are compared as they come, the first
	// once a second comes, so that a group costs the distinct keys it
	// holds (almost always one), not its entries.
	var seen []kept
	visit := func(e spillEntry) error {
		key, a, err := c.spilled(e.idx)
		if err != nil {
			return err
		}
		k := slices.IndexFunc(seen, func(s kept) bool { return s.key == key })
		switch {
		case k < 0:
			seen = append(seen, kept{key, a, e.idx})
		case SameAssignment(seen[k].a, a):
			skipped.add(e.idx, c.count)
		case e.idx < conflict:
			conflict, first = e.idx, seen[k].idx
		}
		return nil
	}
	var head spillEntry // the group's first entry
	inGroup := 0        // and how many it has had
	c.progress("check", 0, int64(c.count))
	done := int64(0)
	err := c.runs.merge(c.opts.MaxMemory/8, func(e spillEntry) error {
		if done++; done%progressEvery == 0 {
			c.progress("check", done, int64(c.count))
		}
		if inGroup == 0 || e.hash != head.hash {
			head, inGroup, seen = e, 1, seen[:0]
			return nil
		}
		if inGroup++; inGroup == 2 {
			if err := visit(head); err != nil {
				return err
			}
		}
		return visit(e)
	})
	if err != nil {
		return nil, err
	}
	if conflict <= compiledMaxCount {
		return nil, c.conflictError(first, conflict)
	}
	skipped.complete()
	c.phaseEnd("check", done)
	return skipped, nil
}

// fileOf returns the file of entry idx and the entry's index there.
func (c *compiler) fileOf(idx uint32) (file, entry int) {
	file = sort.Search(len(c.starts), func(f int) bool { return c.starts[f] > int(idx) }) - 1
	return file, int(idx) - c.starts[file]
}

// conflictError is the loader's error for entry later, whose identifier is
// first's with another assignment. It reads the entry again for the id as
// written and its line.
func (c *compiler) conflictError(first, later uint32) error {
	file, entry := c.fileOf(later)
	e, line, err := readEntryAt(c.paths[file], entry)
	if err != nil {
		return err
	}
	key, _, a, err := e.Compile()
	if err != nil {
		return err
	}
	_, prev, err := c.spilled(first)
	if err != nil {
		return err
	}
	return &LoadError{File: c.paths[file], Line: line, Entry: entry,
		Err: fmt.Errorf("id %q is %s, already assigned by %s with a different %s: equivalent identifiers cannot be assigned twice",
			e.ID, key, c.describe(first), difference(prev, &a))}
}

// describe names entry idx as the loader does: its file, and its index
// there when the file holds several entries.
func (c *compiler) describe(idx uint32) string {
	file, entry := c.fileOf(idx)
	next := c.count
	if file+1 < len(c.starts) {
		next = c.starts[file+1]
	}
	if next-c.starts[file] == 1 {
		return c.paths[file]
	}
	return fmt.Sprintf("%s entry %d", c.paths[file], entry)
}

// errFound stops readEntryAt's reading once it has its entry.
var errFound = errors.New("found")

// readEntryAt reads entry n of the table file at path, and the line where
// it ends.
func readEntryAt(path string, n int) (*Entry, int, error) {
	f, err := osfile.OpenRegular(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	tr := NewReader(f)
	var found *Entry
	i := 0
	_, err = tr.Each(func(e *Entry) error {
		if i == n {
			found = e
			return errFound
		}
		i++
		return nil
	})
	if found == nil {
		return nil, 0, fmt.Errorf("%s changed while compiling: %v", path, err)
	}
	return found, tr.Line, nil
}

// write builds the index and writes the file. buf is the sort buffer,
// which the second sort uses in turn.
func (c *compiler) write(out string, skipped *skipSet, buf []spillEntry) (*CompileStats, error) {
	distinct := c.count - skipped.n
	slotCount := compiledMinSlots
	for slotCount*3 < distinct*4 {
		slotCount *= 2
	}
	if slotCount > compiledMaxSlots {
		return nil, errors.New("too many entries")
	}
	mask := uint64(slotCount - 1)
	home := func(e spillEntry) uint64 { return (e.hash >> 32) & mask }
	slotted, err := newRunSorter(c.tmp, buf, c.runs.max, func(x, y spillEntry) int {
		if hx, hy := home(x), home(y); hx != hy {
			if hx < hy {
				return -1
			}
			return 1
		}
		return byHash(x, y)
	})
	if err != nil {
		return nil, err
	}
	defer slotted.close()
	// The kept entries, numbered from 1 as their records will be (which
	// keeps their order by hash and position), sorted by home slot.
	c.progress("sort", 0, int64(c.count))
	done := int64(0)
	err = c.runs.merge(c.opts.MaxMemory/8, func(e spillEntry) error {
		if done++; done%progressEvery == 0 {
			c.progress("sort", done, int64(c.count))
		}
		if skipped.has(e.idx) {
			return nil
		}
		return slotted.add(spillEntry{hash: e.hash, idx: e.idx - skipped.rank(e.idx) + 1})
	})
	if err != nil {
		return nil, err
	}
	if _, err := slotted.finish(); err != nil {
		return nil, err
	}
	c.phaseEnd("sort", done)

	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return nil, err
	}
	defer removeTemp(f) // after the rename, removes nothing
	h := &compiledHeader{count: uint64(distinct), slotCount: uint64(slotCount)}
	h.recordsOff = CompiledHeaderSize + h.slotCount*CompiledSlotSize
	h.arenaOff = h.recordsOff + h.count*CompiledRecordSize
	h.arenaLen = c.arenaLen
	h.naansOff = h.arenaOff + h.arenaLen
	naans := encodeNAANs(c.naans)
	h.naansLen = uint64(len(naans))
	h.fileLen = h.naansOff + h.naansLen

	// The index is linear probing, entries inserted in the order of their
	// hashes and positions. Slot by slot, the entry placed there is the
	// first inserted of those waiting for it: the entries whose home is
	// this slot or before, not yet placed. So the slots are written in
	// order from the entries sorted by home slot, with a heap of those
	// waiting.
	var waiting entryHeap
	var pos uint64
	var slot [CompiledSlotSize]byte
	place := func(w io.Writer) error {
		var s uint64
		if len(waiting) > 0 {
			e := waiting.pop()
			s = e.hash>>32<<32 | uint64(e.idx)
		}
		binary.LittleEndian.PutUint64(slot[:], s)
		if pos++; pos%progressEvery == 0 {
			c.progress("index", int64(pos), int64(slotCount))
		}
		_, err := w.Write(slot[:])
		return err
	}
	c.progress("index", 0, int64(slotCount))
	if _, err := f.Seek(CompiledHeaderSize, io.SeekStart); err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = slotted.merge(c.opts.MaxMemory/8, func(e spillEntry) error {
		for pos < home(e) {
			if err := place(w); err != nil {
				return err
			}
		}
		waiting.push(e)
		return nil
	})
	for err == nil && pos <= mask {
		err = place(w)
	}
	if err := errors.Join(err, w.Flush()); err != nil {
		return nil, err
	}
	if len(waiting) > 0 {
		// These entries probed past the last slot into the first ones,
		// where they were not waiting when those were written. Place the
		// first slots again with them waiting, up to a slot where nothing
		// waits: from there on, the slots are as written.
		var prefix []byte
		pos = 0
		err = slotted.merge(c.opts.MaxMemory/8, func(e spillEntry) error {
			for pos < home(e) {
				if len(waiting) == 0 {
					return errStopMerge
				}
				if err := place(sliceWriter{&prefix}); err != nil {
					return err
				}
			}
			waiting.push(e)
			return nil
		})
		for err == nil && len(waiting) > 0 {
			err = place(sliceWriter{&prefix})
		}
		if err != nil {
			return nil, err
		}
		if _, err := f.WriteAt(prefix, CompiledHeaderSize); err != nil {
			return nil, err
		}
	}
	c.phaseEnd("index", int64(slotCount))

	// The write phase counts the bytes after the index.
	written := &progressWriter{w: f, total: int64(h.fileLen - h.recordsOff), report: func(n, total int64) { c.progress("write", n, total) }}
	c.progress("write", 0, written.total)
	crc := crc32.New(castagnoli)
	if _, err := io.Copy(crc, io.NewSectionReader(f, CompiledHeaderSize, int64(h.recordsOff-CompiledHeaderSize))); err != nil {
		return nil, err
	}
	w = bufio.NewWriterSize(io.MultiWriter(written, crc), 1<<20)
	if err := c.copyRecords(w, skipped); err != nil {
		return nil, err
	}
	if _, err := c.arena.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if _, err := io.Copy(w, bufio.NewReaderSize(c.arena, 1<<20)); err != nil {
		return nil, err
	}
	if _, err := w.Write(naans); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	h.dataCRC = crc.Sum32()
	if _, err := f.WriteAt(h.encode(), 0); err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil { // CreateTemp made it 0600
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if err := os.Rename(f.Name(), out); err != nil {
		return nil, err
	}
	c.phaseEnd("write", written.n)
	return &CompileStats{Entries: c.count, Distinct: distinct, Size: int64(h.fileLen)}, nil
}

// sliceWriter appends what is written to a slice.
type sliceWriter struct{ b *[]byte }

func (s sliceWriter) Write(p []byte) (int, error) {
	*s.b = append(*s.b, p...)
	return len(p), nil
}

// copyRecords copies the spilled records to w, leaving out the skipped.
func (c *compiler) copyRecords(w io.Writer, skipped *skipSet) error {
	if _, err := c.records.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(c.records, 1<<20)
	rec := make([]byte, CompiledRecordSize)
	for idx := uint32(0); ; idx++ {
		if _, err := io.ReadFull(r, rec); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if skipped.has(idx) {
			continue
		}
		if _, err := w.Write(rec); err != nil {
			return err
		}
	}
}

// encodeNAANs encodes the naans section.
func encodeNAANs(naans map[string]struct{}) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(naans)))
	for _, n := range slices.Sorted(maps.Keys(naans)) {
		b = append(append(b, byte(len(n))), n...)
	}
	return b
}
