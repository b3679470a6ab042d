package table

// A compiled table is the file `caddy ark compile` writes: the same
// assignments as the JSON table files it was compiled from, laid out to be
// memory-mapped read-only and used in place, so that opening it costs the
// same for ten entries as for a hundred million, pages are read from disk
// only when a lookup touches them, and processes on one machine share
// them through the page cache.
//
// # Format, version 1
//
// All integers are little-endian. The file is, in this order and without
// gaps:
//
//	header   96 bytes
//	slots    slotCount × 8 bytes: the open-addressing index
//	records  count × 24 bytes: one per distinct key, in the order written
//	arena    arenaLen bytes: keys, targets and metadata
//	naans    naansLen bytes: the NAANs of the table's ARKs
//
// The header:
//
//	 0  [8]byte  magic "\x89ARKTBL\n" (never the start of a JSON file)
//	 8  uint32   format version, 1
//	12  uint32   reserved, 0
//	16  uint64   count: distinct keys, at most 2^32-2
//	24  uint64   slotCount: a power of two from 16 to 2^32, above count
//	32  uint64   offset of the records
//	40  uint64   offset of the arena
//	48  uint64   arenaLen
//	56  uint64   offset of the naans
//	64  uint64   naansLen
//	72  uint64   the file's length
//	80  uint32   CRC-32C (Castagnoli) of every byte after the header
//	84  uint32   CRC-32C of header bytes 0 to 83
//	88  [8]byte  reserved, 0
//
// A slot is 0 when empty, else the high 32 bits of the key's hash
// (keyhash.String) above the record's index plus one. A key's search starts
// at the slot numbered by its hash's high 32 bits modulo slotCount and
// goes on slot by slot (wrapping) to the first empty one.
//
// A record:
//
//	 0  uint64  offset in the arena of its key, followed there by its
//	            target and its metadata
//	 8  uint16  key length
//	10  uint16  target length ("" for a withdrawn identifier without one)
//	12  uint32  metadata length: 0 for none, else a uint16 count of pairs,
//	            then for each a uint16 key length, a uint16 value length,
//	            the key and the value, keys in increasing order
//	16  uint16  status: 200, 302, 303, 307 or 410
//	18  uint16  flags: bit 0 passthrough, the others 0
//	20  uint32  CRC-32C of record bytes 0 to 19 and of its arena bytes
//
// The naans are a uint32 count, then for each a uint8 length and the NAAN.
//
// # Damage
//
// Opening checks the header's checksum and that every section lies where
// the header says, inside the file. A lookup bounds-checks every index and
// offset it follows and checks the record's own checksum before answering
// from it, so a damaged record is never answered from: a lookup that
// reaches one answers unreadable (503), since the key asked for may be the
// one it holds. A slot whose tag matches a record whose key hashes to
// another tag is damaged too. The whole-file checksum, checked by `caddy
// ark check` and at open when verify_tables is on, catches damage made
// before the file was mapped.
//
// A file changed while mapped is the other danger: a slot zeroed or
// altered hides a key, so that a lookup would miss it and answer 404, and
// a file truncated to a size that is not a multiple of the page size reads
// as zeros (empty slots) up to the end of its last page, and faults past
// it. So the table keeps the file open, and a lookup that misses compares
// the file's size, modification and change times (fstat, no path lookup)
// with those it was mapped at. A file of another size, or whose whole-file
// checksum no longer holds, marks the mapping damaged; one whose times
// changed but whose bytes did not (chmod, touch) is checked once and
// served on. A damaged mapping answers unreadable for every key it does
// not find, and keeps answering the keys whose records still check, until
// a good file renamed over it is loaded (watch, or a config reload). Every
// in-place write changes the change time, which nothing can set back, so
// the check catches every write through the file system; damage below it
// (the disk) is what verify_tables and `caddy ark check` are for. A fault
// reading past a truncated end is recovered and answers unreadable too.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"iter"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/caddy-ark/caddy-ark/internal/keyhash"
	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"github.com/caddy-ark/caddy-ark/internal/osfile"
	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// compiledMagic starts every compiled table.
const compiledMagic = "\x89ARKTBL\n"

// compiledVersion is the format version this code reads and writes.
const compiledVersion = 1

const (
	CompiledHeaderSize = 96
	CompiledSlotSize   = 8
	CompiledRecordSize = 24
	compiledMaxCount   = 1<<32 - 2
	compiledMinSlots   = 16
	compiledMaxSlots   = 1 << 32
)

// castagnoli is the CRC-32C table, computed in hardware where the CPU can.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// compiledHeader is the decoded header of a compiled table.
type compiledHeader struct {
	count, slotCount, recordsOff, arenaOff, arenaLen, naansOff, naansLen, fileLen uint64
	dataCRC                                                                       uint32
}

// encode writes h as the 96 header bytes, with its checksum.
func (h *compiledHeader) encode() []byte {
	b := make([]byte, CompiledHeaderSize)
	copy(b, compiledMagic)
	binary.LittleEndian.PutUint32(b[8:], compiledVersion)
	for i, v := range []uint64{h.count, h.slotCount, h.recordsOff, h.arenaOff, h.arenaLen, h.naansOff, h.naansLen, h.fileLen} {
		binary.LittleEndian.PutUint64(b[16+8*i:], v)
	}
	binary.LittleEndian.PutUint32(b[80:], h.dataCRC)
	binary.LittleEndian.PutUint32(b[84:], crc32.Checksum(b[:84], castagnoli))
	return b
}

// ErrDamaged is wrapped by every error about a compiled table's structure.
var ErrDamaged = errors.New("damaged compiled table")

func damaged(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrDamaged}, args...)...)
}

// decodeCompiledHeader validates the header of a compiled file of size
// bytes and the places of its sections.
func decodeCompiledHeader(b []byte, size uint64) (*compiledHeader, error) {
	if size < CompiledHeaderSize || uint64(len(b)) < CompiledHeaderSize {
		return nil, damaged("%d bytes, shorter than the header", size)
	}
	if string(b[:8]) != compiledMagic {
		return nil, damaged("no compiled table magic")
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != compiledVersion {
		return nil, fmt.Errorf("compiled table format version %d: this caddy-ark reads version %d; compile the table again", v, compiledVersion)
	}
	if crc32.Checksum(b[:84], castagnoli) != binary.LittleEndian.Uint32(b[84:]) {
		return nil, damaged("header checksum mismatch")
	}
	u := func(off int) uint64 { return binary.LittleEndian.Uint64(b[off:]) }
	h := &compiledHeader{count: u(16), slotCount: u(24), recordsOff: u(32), arenaOff: u(40), arenaLen: u(48),
		naansOff: u(56), naansLen: u(64), fileLen: u(72), dataCRC: binary.LittleEndian.Uint32(b[80:])}
	switch {
	case binary.LittleEndian.Uint32(b[12:]) != 0 || u(88) != 0:
		return nil, damaged("reserved header bytes are not 0")
	case h.fileLen != size:
		return nil, damaged("the header says %d bytes, the file has %d (truncated?)", h.fileLen, size)
	case h.count > compiledMaxCount:
		return nil, damaged("%d records", h.count)
	case h.slotCount < compiledMinSlots || h.slotCount > compiledMaxSlots || h.slotCount&(h.slotCount-1) != 0 || h.count >= h.slotCount:
		return nil, damaged("%d slots for %d records", h.slotCount, h.count)
	case h.recordsOff != CompiledHeaderSize+h.slotCount*CompiledSlotSize,
		h.arenaOff != h.recordsOff+h.count*CompiledRecordSize,
		h.arenaLen > size || h.naansOff != h.arenaOff+h.arenaLen,
		h.naansLen > size || h.naansOff+h.naansLen != size:
		return nil, damaged("sections out of place")
	}
	return h, nil
}

// Compiled is a compiled table file mapped in memory. It implements
// entryTable. Strings it returns are copies, so nothing refers to the
// mapping once a lookup has returned; the mapping is released when the
// table is garbage, that is when no resolver and no request uses it.
type Compiled struct {
	path    string
	data    []byte // the whole file, mapped read-only
	slots   []byte
	records []byte
	arena   []byte
	count   int
	mask    uint64
	naans   []string
	dataCRC uint32
	damaged atomic.Bool // the file was found damaged: misses answer unreadable
	logged  atomic.Bool // the damage was logged, which happens once

	file     *os.File                  // the file mapped, kept open to fstat it on a miss
	stamp    atomic.Pointer[fileStamp] // what fstat said when the file was last known good
	checking sync.Mutex                // held while a changed file's checksum is checked
}

// sourceOf implements entryTable: a compiled table names its file.
func (t *Compiled) SourceOf(key string) (string, bool) {
	if _, ok := t.Lookup(key); !ok {
		return "", false
	}
	return t.path, true
}

// IsCompiled reports whether the file at path starts with the magic
// of a compiled table.
func IsCompiled(path string) (bool, error) {
	f, err := osfile.OpenRegular(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var magic [len(compiledMagic)]byte
	n, _ := f.ReadAt(magic[:], 0)
	return n == len(magic) && string(magic[:]) == compiledMagic, nil
}

// OpenCompiled maps the compiled table at path and checks its header
// and structure; with verify, it also checks the whole file's checksum,
// which reads every page.
func OpenCompiled(path string, verify bool) (*Compiled, error) {
	f, err := osfile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	stamp, err := statFile(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	data, err := mapFile(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t, err := newCompiledTable(path, data)
	if err == nil && verify {
		err = t.verify()
	}
	if err != nil {
		unmapFile(data)
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t.file = f
	t.stamp.Store(&stamp)
	runtime.AddCleanup(t, releaseMapping, mapping{data, f})
	return t, nil
}

// mapping is what a Compiled holds of the system: released together once
// the table is garbage.
type mapping struct {
	data []byte
	file *os.File
}

// releaseMapping unmaps and closes m.
func releaseMapping(m mapping) {
	unmapFile(m.data)
	m.file.Close()
}

// newCompiledTable validates data, a whole compiled file, and returns the
// table it holds.
func newCompiledTable(path string, data []byte) (*Compiled, error) {
	h, err := decodeCompiledHeader(data, uint64(len(data)))
	if err != nil {
		return nil, err
	}
	t := &Compiled{path: path, data: data, count: int(h.count), mask: h.slotCount - 1, dataCRC: h.dataCRC,
		slots:   data[CompiledHeaderSize:h.recordsOff],
		records: data[h.recordsOff:h.arenaOff],
		arena:   data[h.arenaOff:h.naansOff],
	}
	if t.naans, err = decodeNAANs(data[h.naansOff:]); err != nil {
		return nil, err
	}
	return t, nil
}

// decodeNAANs reads the naans section.
func decodeNAANs(b []byte) ([]string, error) {
	if len(b) < 4 {
		return nil, damaged("naans section too short")
	}
	n := binary.LittleEndian.Uint32(b)
	b = b[4:]
	if uint64(n) > uint64(len(b)) {
		return nil, damaged("%d naans in %d bytes", n, len(b))
	}
	naans := make([]string, 0, n)
	for range n {
		if len(b) < 1 || int(b[0]) >= len(b) || b[0] == 0 {
			return nil, damaged("naans section out of bounds")
		}
		naans = append(naans, string(b[1:1+b[0]]))
		b = b[1+b[0]:]
	}
	if len(b) != 0 || !slices.IsSorted(naans) {
		return nil, damaged("naans section malformed")
	}
	return naans, nil
}

// verify checks the whole file's checksum, reading it in order with
// read-ahead.
func (t *Compiled) verify() (err error) {
	defer recoverFault(func() { err = damaged("the file shrank while mapped: a compiled table must be replaced by rename") })
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	ahead := newReadAhead(t.data, CompiledHeaderSize, len(t.data))
	var crc uint32
	for off := CompiledHeaderSize; off < len(t.data); off += readAheadWindow / 4 {
		ahead.reach(off)
		crc = crc32.Update(crc, castagnoli, t.data[off:min(off+readAheadWindow/4, len(t.data))])
	}
	if crc != t.dataCRC {
		return damaged("checksum mismatch: the file is not as it was written")
	}
	return nil
}

// compiledRecord is a record decoded and bounds-checked: its arena bytes
// lie inside the arena.
type compiledRecord struct {
	key, target, meta []byte
	status            int
	passthrough       bool
}

// record decodes record i, checking its bounds, its checksum and its
// fields; ok is false if it is damaged.
func (t *Compiled) record(i uint64) (r compiledRecord, ok bool) {
	if i >= uint64(t.count) {
		return r, false
	}
	return decodeCompiledRecord(t.records[i*CompiledRecordSize:(i+1)*CompiledRecordSize], t.arena, 0)
}

// decodeCompiledRecord decodes the record b, whose arena bytes are in arena, a
// part of the arena starting at offset base.
func decodeCompiledRecord(b, arena []byte, base uint64) (r compiledRecord, ok bool) {
	off := binary.LittleEndian.Uint64(b)
	keyLen, targetLen := uint64(binary.LittleEndian.Uint16(b[8:])), uint64(binary.LittleEndian.Uint16(b[10:]))
	metaLen := uint64(binary.LittleEndian.Uint32(b[12:]))
	if off < base || off-base > uint64(len(arena)) || keyLen+targetLen+metaLen > uint64(len(arena))-(off-base) {
		return r, false
	}
	off -= base
	all := arena[off : off+keyLen+targetLen+metaLen]
	crc := crc32.Update(crc32.Checksum(b[:20], castagnoli), castagnoli, all)
	if crc != binary.LittleEndian.Uint32(b[20:]) {
		return r, false
	}
	r = compiledRecord{key: all[:keyLen], target: all[keyLen : keyLen+targetLen], meta: all[keyLen+targetLen:],
		status: int(binary.LittleEndian.Uint16(b[16:]))}
	flags := binary.LittleEndian.Uint16(b[18:])
	r.passthrough = flags&1 != 0
	switch r.status {
	case 200, 302, 303, 307, 410:
	default:
		return r, false
	}
	return r, flags&^1 == 0
}

// targetRoom is the longest target an assignment copied out of a mapping
// holds in its own allocation (compiledAssignment): most targets are
// shorter.
const targetRoom = 88

// compiledAssignment is an Assignment with room for its target, so that a
// lookup allocates once for both.
type compiledAssignment struct {
	a      Assignment
	target [targetRoom]byte
}

// assignment copies r out of the mapping, into room when it is not nil,
// else into an allocation of its own; ok is false if its metadata is
// malformed.
func (r *compiledRecord) assignment(room *Assignment) (*Assignment, bool) {
	a := room
	switch n := len(r.target); {
	case a != nil:
		*a = Assignment{Target: string(r.target)}
	case n > 0 && n <= targetRoom:
		ca := new(compiledAssignment)
		copy(ca.target[:], r.target)
		ca.a.Target = unsafe.String(&ca.target[0], n) // never written again: the string keeps ca alive
		a = &ca.a
	default:
		a = &Assignment{Target: string(r.target)}
	}
	a.Status, a.Passthrough = r.status, r.passthrough
	if len(r.meta) == 0 {
		return a, true
	}
	m, ok := decodeMeta(r.meta)
	a.Meta = m
	return a, ok
}

// decodeMeta decodes a record's metadata, checking every length.
func decodeMeta(b []byte) (map[string]string, bool) {
	if len(b) < 2 {
		return nil, false
	}
	n := int(binary.LittleEndian.Uint16(b))
	if n > MaxMetaKeys {
		return nil, false
	}
	b = b[2:]
	m := make(map[string]string, n)
	prev := ""
	for i := range n {
		if len(b) < 4 {
			return nil, false
		}
		kl, vl := int(binary.LittleEndian.Uint16(b)), int(binary.LittleEndian.Uint16(b[2:]))
		b = b[4:]
		if kl == 0 || kl+vl > len(b) {
			return nil, false
		}
		k := string(b[:kl])
		if i > 0 && k <= prev {
			return nil, false
		}
		m[k], prev = string(b[kl:kl+vl]), k
		b = b[kl+vl:]
	}
	return m, len(b) == 0
}

// Lookup implements entryTable. A file found damaged where key would be,
// or shrunk while mapped, answers unreadable: the key may well be in it.
func (t *Compiled) Lookup(key string) (*Assignment, bool) {
	return t.lookup(key, nil)
}

// LookupIn implements Table, as Lookup does.
func (t *Compiled) LookupIn(key string, room *Assignment) (*Assignment, bool) {
	return t.lookup(key, room)
}

// lookup looks key up as Lookup does, putting its assignment in room
// when room is not nil.
func (t *Compiled) lookup(key string, room *Assignment) (a *Assignment, ok bool) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			a, ok = Unreadable, true
		}
		if a == Unreadable {
			t.reportDamage()
		}
		runtime.KeepAlive(t) // the mapping must outlive the reads above
	}()
	if a, ok = t.find(key, room); !ok && !t.intact() {
		return Unreadable, true // a miss of a damaged file proves nothing
	}
	return a, ok
}

// intact reports whether the mapped file is still as it was mapped, as far
// as a miss needs to know: the mapping is not marked damaged, and fstat
// says the file has the size and times it was last known good at. When
// only its times changed, the whole file's checksum decides, once per
// change: a chmod or touch leaves the table whole.
func (t *Compiled) intact() bool {
	if t.damaged.Load() {
		return false
	}
	if t.file == nil {
		return true // not mapped from a file (tests)
	}
	now, err := statFile(t.file)
	if err == nil && now == *t.stamp.Load() {
		return true
	}
	if err != nil || now.size != int64(len(t.data)) {
		t.damaged.Store(true)
		return false
	}
	t.checking.Lock()
	defer t.checking.Unlock()
	if t.damaged.Load() || now == *t.stamp.Load() {
		return !t.damaged.Load()
	}
	if t.verify() != nil {
		t.damaged.Store(true)
		return false
	}
	changed := now // only here does a stamp go to the heap
	t.stamp.Store(&changed)
	return true
}

// reportDamage counts a lookup that found t damaged, marks the mapping
// damaged, and logs the first.
func (t *Compiled) reportDamage() {
	metrics.Counters.TableDamaged.Inc()
	if !t.logged.Swap(true) {
		t.damaged.Store(true)
		caddy.Log().Named("http.handlers.ark").Error("compiled table damaged or changed in place while mapped: identifiers it may hold answer 503 until a good file is renamed over it and reloaded",
			zap.String("file", t.path))
	}
}

// recoverFault, deferred after debug.SetPanicOnFault(true), turns a memory
// fault into a call of onFault: reading a page of a mapped file that was
// truncated after it was mapped (a table copied over in place, not
// renamed) faults, and must not crash the server. Other panics go on.
func recoverFault(onFault func()) {
	r := recover()
	if r == nil {
		return
	}
	if _, fault := r.(interface{ Addr() uintptr }); !fault {
		panic(r)
	}
	onFault()
}

// find returns the assignment of key, put in room when it is not nil.
func (t *Compiled) find(key string, room *Assignment) (*Assignment, bool) {
	h := keyhash.String(key)
	tag := h >> 32
	i := tag & t.mask
	for range t.mask + 1 {
		s := binary.LittleEndian.Uint64(t.slots[i*CompiledSlotSize:])
		if s == 0 {
			return nil, false
		}
		if s>>32 == tag {
			r, ok := t.record(uint64(uint32(s)) - 1)
			if !ok {
				return Unreadable, true // most likely key's own record: a 32-bit tag rarely matches another
			}
			if string(r.key) == key {
				if a, ok := r.assignment(room); ok {
					return a, true
				}
				return Unreadable, true
			}
			if keyhash.String(string(r.key))>>32 != tag {
				return Unreadable, true // the slot does not belong to its record: damaged
			}
		}
		i = (i + 1) & t.mask
	}
	return nil, false
}

// Len implements entryTable.
func (t *Compiled) Len() int { return t.count }

// NAANs implements entryTable.
func (t *Compiled) NAANs() []string { return slices.Clone(t.naans) }

// All implements entryTable. A damaged record ends the iteration; check
// reports it (see walk).
func (t *Compiled) All() iter.Seq2[string, *Assignment] {
	return func(yield func(string, *Assignment) bool) {
		_ = t.Walk(yield)
	}
}

// From implements entryTable: the records from the nth on. A damaged
// record ends the iteration.
func (t *Compiled) From(n int) iter.Seq2[string, *Assignment] {
	return func(yield func(string, *Assignment) bool) {
		defer runtime.KeepAlive(t)
		defer recoverFault(func() {})
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		for i := uint64(max(n, 0)); i < uint64(t.count); i++ {
			r, ok := t.record(i)
			if !ok {
				return
			}
			a, ok := r.assignment(nil)
			if !ok || !yield(string(r.key), a) {
				return
			}
		}
	}
}

// Walk yields every record in order, and returns an error naming the
// first damaged one. The records and the arena are read in order, with
// read-ahead.
func (t *Compiled) Walk(yield func(string, *Assignment) bool) (err error) {
	defer runtime.KeepAlive(t)
	defer recoverFault(func() { err = damaged("the file shrank while mapped: a compiled table must be replaced by rename") })
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	recordsOff := CompiledHeaderSize + len(t.slots)
	arenaOff := recordsOff + len(t.records)
	records := newReadAhead(t.data, recordsOff, arenaOff)
	arena := newReadAhead(t.data, arenaOff, arenaOff+len(t.arena))
	for i := range uint64(t.count) {
		records.reach(recordsOff + int(i)*CompiledRecordSize)
		if off := binary.LittleEndian.Uint64(t.records[i*CompiledRecordSize:]); off < uint64(len(t.arena)) {
			arena.reach(arenaOff + int(off))
		}
		r, ok := t.record(i)
		if !ok {
			return damaged("record %d", i)
		}
		a, ok := r.assignment(nil)
		if !ok {
			return damaged("record %d: metadata", i)
		}
		if !yield(string(r.key), a) {
			return nil
		}
	}
	return nil
}

// Check verifies the whole file: its checksum, every record, and that the
// index finds every key. It returns the first problem.
func (t *Compiled) Check() error {
	if err := t.verify(); err != nil {
		return err
	}
	var err error
	i := 0
	werr := t.Walk(func(key string, _ *Assignment) bool {
		if _, ok := t.Lookup(key); !ok {
			err = damaged("record %d (%s): not found through the index", i, key)
			return false
		}
		i++
		return true
	})
	return errors.Join(werr, err)
}

// Unreadable is what a table answers for a key it cannot read: a compiled
// table found damaged where the key would be, or shrunk while mapped.
var Unreadable = &Assignment{Status: http.StatusServiceUnavailable}
