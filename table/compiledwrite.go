package table

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/caddy-ark/caddy-ark/internal/osfile"
)

// CompileStats describes a compiled table that was written.
type CompileStats struct {
	Entries  int   // entries read, duplicates included
	Distinct int   // distinct keys written
	Size     int64 // bytes of the file
}

// compiler writes a compiled table from JSON table files in two passes,
// so that it never holds the table itself. The first pass streams every
// entry, checked and normalized as the JSON loader does, to two spill
// files next to the output (records and arena, in the compiled format),
// keeping only 16 bytes per entry in memory: the key's hash and the
// entry's position. Sorting those by hash brings equivalent identifiers
// together: they are compared on disk, duplicates dropped and conflicts
// refused as the loader refuses them. The second pass builds the index in
// memory (8 bytes per slot) and copies the spill files into the output.
type compiler struct {
	paths    []string
	starts   []int // position of each file's first entry
	ents     []spillEntry
	naans    map[string]struct{}
	records  *os.File // spilled records, compiledRecordSize bytes each
	arena    *os.File // spilled arena
	recW     *bufio.Writer
	arenaW   *bufio.Writer
	arenaLen uint64
}

// spillEntry is what the compiler keeps in memory of an entry.
type spillEntry struct {
	hash uint64
	idx  uint32 // position among all entries read
}

// Compile compiles the JSON table files at paths into the compiled
// table out, through a temporary file renamed into place once complete.
// Errors are those loading the files would give.
func Compile(paths []string, out string) (*CompileStats, error) {
	// The entries and the index are a few large allocations that live to
	// the end; what else is allocated is short-lived garbage, which the
	// default GOGC=100 would let grow to their size before collecting it.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	dir := filepath.Dir(out)
	c := &compiler{paths: paths, naans: map[string]struct{}{}}
	var err error
	if c.records, err = os.CreateTemp(dir, ".ark-compile-records-*"); err != nil {
		return nil, err
	}
	defer removeTemp(c.records)
	if c.arena, err = os.CreateTemp(dir, ".ark-compile-arena-*"); err != nil {
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
	c.ents = make([]spillEntry, 0, min(hint, compiledMaxCount))
	readErr := c.readAll()
	if err := errors.Join(c.recW.Flush(), c.arenaW.Flush()); err != nil {
		return nil, err
	}
	skipped, err := c.dedupe()
	if err != nil {
		return nil, err
	}
	if readErr != nil {
		return nil, readErr
	}
	return c.write(out, skipped)
}

// removeTemp closes and removes a spill file.
func removeTemp(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}

// readAll is the first pass: it spills every entry of every file.
func (c *compiler) readAll() error {
	for _, path := range c.paths {
		c.starts = append(c.starts, len(c.ents))
		f, err := osfile.OpenRegular(path)
		if err != nil {
			return err
		}
		tr := NewReader(f)
		entry, err := tr.Each(c.add)
		f.Close()
		if err != nil {
			return &LoadError{File: path, Line: tr.Line, Entry: entry, Err: err}
		}
	}
	return nil
}

// add checks and spills one entry.
func (c *compiler) add(e *Entry) error {
	key, naan, a, err := e.Compile()
	if err != nil {
		return err
	}
	if len(c.ents) == compiledMaxCount {
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
	c.ents = append(c.ents, spillEntry{hash: compiledHash(key), idx: uint32(len(c.ents))})
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
	a, _ = r.assignment()
	return string(r.key), a, nil
}

// dedupe sorts the entries by hash and compares those whose hashes are
// equal: an identifier already there with the same assignment is dropped,
// one with another assignment is the first conflict the loader would
// have met. It returns the dropped positions, sorted.
func (c *compiler) dedupe() ([]uint32, error) {
	slices.SortFunc(c.ents, func(x, y spillEntry) int {
		if x.hash != y.hash {
			if x.hash < y.hash {
				return -1
			}
			return 1
		}
		return int(x.idx) - int(y.idx)
	})
	var skipped []uint32
	conflict, first := uint32(compiledMaxCount+1), uint32(0)
	for i := 0; i < len(c.ents); {
		j := i + 1
		for j < len(c.ents) && c.ents[j].hash == c.ents[i].hash {
			j++
		}
		if j-i > 1 {
			type kept struct {
				key string
				a   *Assignment
				idx uint32
			}
			var seen []kept
			for _, e := range c.ents[i:j] {
				key, a, err := c.spilled(e.idx)
				if err != nil {
					return nil, err
				}
				k := slices.IndexFunc(seen, func(s kept) bool { return s.key == key })
				switch {
				case k < 0:
					seen = append(seen, kept{key, a, e.idx})
				case SameAssignment(seen[k].a, a):
					skipped = append(skipped, e.idx)
				case e.idx < conflict:
					conflict, first = e.idx, seen[k].idx
				}
			}
		}
		i = j
	}
	if conflict <= compiledMaxCount {
		return nil, c.conflictError(first, conflict)
	}
	slices.Sort(skipped)
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
	next := len(c.ents)
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

// write is the second pass: it builds the index and writes the file.
func (c *compiler) write(out string, skipped []uint32) (*CompileStats, error) {
	distinct := len(c.ents) - len(skipped)
	slotCount := compiledMinSlots
	for slotCount*3 < distinct*4 {
		slotCount *= 2
	}
	if slotCount > compiledMaxSlots {
		return nil, errors.New("too many entries")
	}
	slots := make([]uint64, slotCount)
	mask := uint64(slotCount - 1)
	for _, e := range c.ents {
		if _, dup := slices.BinarySearch(skipped, e.idx); dup {
			continue
		}
		before, _ := slices.BinarySearch(skipped, e.idx)
		tag := e.hash >> 32
		i := tag & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = tag<<32 | uint64(int(e.idx)-before+1)
	}
	entries := len(c.ents)
	c.ents = nil // the index holds what is still needed

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

	if _, err := f.Seek(CompiledHeaderSize, io.SeekStart); err != nil {
		return nil, err
	}
	crc := crc32.New(castagnoli)
	w := bufio.NewWriterSize(io.MultiWriter(f, crc), 1<<20)
	buf := make([]byte, 0, 1<<16)
	for i, s := range slots {
		buf = binary.LittleEndian.AppendUint64(buf, s)
		if len(buf) == cap(buf) || i == len(slots)-1 {
			if _, err := w.Write(buf); err != nil {
				return nil, err
			}
			buf = buf[:0]
		}
	}
	slots = nil
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
	return &CompileStats{Entries: entries, Distinct: distinct, Size: int64(h.fileLen)}, nil
}

// copyRecords copies the spilled records to w, leaving out the skipped.
func (c *compiler) copyRecords(w io.Writer, skipped []uint32) error {
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
		if len(skipped) > 0 && skipped[0] == idx {
			skipped = skipped[1:]
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
