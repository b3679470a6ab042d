package localcopy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/caddy-ark/caddy-ark/internal/keyhash"
	"github.com/caddy-ark/caddy-ark/store"
)

// The base file: every binding, sorted by key, as of one sequence number
// of the store's history, and an open-addressing index of them by key.
//
//	magic (8 bytes)
//	records: uvarint length, then the binding (appendBinding), by key
//	slots: slotCount × 8 bytes, slotCount a power of two from 16 up,
//	       at least 3/2 of count
//	footer: seq, count, slots offset, id (8 bytes each), CRC-32C of all
//	        that comes before it and of these four (4 bytes), 4 zero
//	        bytes, end magic (8 bytes)
//
// A slot is 0 when empty, else the high 24 bits of the key's hash
// (keyhash.String, the compiled tables' hash) above the record's offset
// in the file plus one (40 bits: a base is smaller than 1 TiB). A key's
// search starts at the slot numbered by its hash's low bits and goes on
// slot by slot (wrapping) to the first empty one; a record is read only
// where the tags match. So a lookup reads a slot or two and the one
// record it asks about, a key the base lacks often no record at all,
// whatever the base's size.
//
// It is written to a temporary file, synced and renamed into place, and
// its checksum is checked when it is opened: a base that is torn or
// damaged, or of the earlier format (sorted offsets instead of slots), is
// never read, and the copy is built again.
//
// The compiled .arkt format is not used: it holds table entries, which
// have no minted-but-unbound state (Status 0), no version, no reason and
// no writer, and it is written from JSON files, while a store's Each
// gives bindings in key order, which a sorted file takes as they come,
// in one pass, and a compaction merges with the journal in one pass.
var (
	baseMagic = []byte("ARKCOPY\x02")
	baseEnd   = []byte("ARKCEND\x02")
)

const footerSize = 48

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// baseName is the base file's name in a copy's directory.
const baseName = "bindings.base"

// A slot's parts.
const (
	slotOffsetBits = 40
	slotOffsetMask = 1<<slotOffsetBits - 1
)

// base is an open base file, mapped in memory.
type base struct {
	data    []byte // the magic and the records
	slots   []byte // 8 bytes a slot
	mask    uint64 // slotCount - 1
	seq, id uint64
	count   int
	unmap   func()
}

// baseWriter writes a base file from bindings given in key order. The
// records go to the file as they come; each one's hash and offset to a
// temporary file, from which finish builds the slots.
type baseWriter struct {
	dir      string
	f, idx   *os.File
	w, idxW  *bufio.Writer
	crc      hash.Hash32
	off      uint64
	count    uint64
	last     []byte
	buf      []byte
	anyWrote bool
}

// newBaseWriter starts a base file in dir.
func newBaseWriter(dir string) (*baseWriter, error) {
	f, err := os.CreateTemp(dir, ".base-*")
	if err != nil {
		return nil, err
	}
	idx, err := os.CreateTemp(dir, ".index-*")
	if err != nil {
		removeFile(f)
		return nil, err
	}
	bw := &baseWriter{dir: dir, f: f, idx: idx, crc: crc32.New(castagnoli)}
	bw.w = bufio.NewWriterSize(io.MultiWriter(f, bw.crc), 1<<20)
	bw.idxW = bufio.NewWriterSize(idx, 1<<16)
	_, err = bw.w.Write(baseMagic)
	bw.off = uint64(len(baseMagic))
	if err != nil {
		bw.abort()
		return nil, err
	}
	return bw, nil
}

// add writes b, whose key must follow the last one's.
func (bw *baseWriter) add(b *store.Binding) error {
	if bw.anyWrote && bytes.Compare([]byte(b.Key), bw.last) <= 0 {
		return fmt.Errorf("local copy: the store gave %q after %q: bindings must come in key order", b.Key, bw.last)
	}
	if bw.off >= slotOffsetMask {
		return fmt.Errorf("local copy: the base file would reach 1 TiB, more than its index can address")
	}
	bw.anyWrote = true
	bw.last = append(bw.last[:0], b.Key...)
	bw.buf = appendBinding(bw.buf[:0], b)
	var n [binary.MaxVarintLen64]byte
	head := binary.PutUvarint(n[:], uint64(len(bw.buf)))
	var ent [16]byte
	binary.LittleEndian.PutUint64(ent[:], keyhash.String(b.Key))
	binary.LittleEndian.PutUint64(ent[8:], bw.off)
	if _, err := bw.idxW.Write(ent[:]); err != nil {
		return err
	}
	if _, err := bw.w.Write(n[:head]); err != nil {
		return err
	}
	if _, err := bw.w.Write(bw.buf); err != nil {
		return err
	}
	bw.off += uint64(head + len(bw.buf))
	bw.count++
	return nil
}

// slotCountFor returns the slots of a base of count bindings: a power of
// two, at least 16 and 3/2 of count, so that a search meets an empty
// slot within a few.
func slotCountFor(count uint64) uint64 {
	n := uint64(16)
	for n < count+count/2 {
		n *= 2
	}
	return n
}

// slotsOf builds the slots from the hashes and offsets written to idx.
func (bw *baseWriter) slotsOf() ([]uint64, error) {
	if err := bw.idxW.Flush(); err != nil {
		return nil, err
	}
	if _, err := bw.idx.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	slots := make([]uint64, slotCountFor(bw.count))
	mask := uint64(len(slots) - 1)
	r := bufio.NewReaderSize(bw.idx, 1<<16)
	var ent [16]byte
	for range bw.count {
		if _, err := io.ReadFull(r, ent[:]); err != nil {
			return nil, err
		}
		h, off := binary.LittleEndian.Uint64(ent[:]), binary.LittleEndian.Uint64(ent[8:])
		i := h & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = h>>slotOffsetBits<<slotOffsetBits | (off + 1)
	}
	return slots, nil
}

// finish appends the slots and the footer for seq and id, syncs the
// file and renames it into place as the copy's base.
func (bw *baseWriter) finish(seq, id uint64) error {
	slots, err := bw.slotsOf()
	slotsOff := bw.off
	if err == nil {
		buf := make([]byte, 0, 1<<16)
		for i, s := range slots {
			buf = binary.LittleEndian.AppendUint64(buf, s)
			if len(buf) == cap(buf) || i == len(slots)-1 {
				if _, err = bw.w.Write(buf); err != nil {
					break
				}
				buf = buf[:0]
			}
		}
	}
	if err == nil {
		err = bw.w.Flush() // the checksum has all before the footer
	}
	if err != nil {
		bw.abort()
		return err
	}
	footer := binary.LittleEndian.AppendUint64(nil, seq)
	footer = binary.LittleEndian.AppendUint64(footer, bw.count)
	footer = binary.LittleEndian.AppendUint64(footer, slotsOff)
	footer = binary.LittleEndian.AppendUint64(footer, id)
	bw.crc.Write(footer)
	footer = binary.LittleEndian.AppendUint32(footer, bw.crc.Sum32())
	footer = append(footer, 0, 0, 0, 0)
	footer = append(footer, baseEnd...)
	if _, err := bw.w.Write(footer); err != nil {
		bw.abort()
		return err
	}
	if err := bw.w.Flush(); err != nil {
		bw.abort()
		return err
	}
	removeFile(bw.idx)
	if err := bw.f.Sync(); err != nil {
		removeFile(bw.f)
		return err
	}
	if err := bw.f.Close(); err != nil {
		os.Remove(bw.f.Name())
		return err
	}
	return renameSynced(bw.f.Name(), filepath.Join(bw.dir, baseName))
}

// abort removes what was written.
func (bw *baseWriter) abort() {
	removeFile(bw.f)
	removeFile(bw.idx)
}

func removeFile(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}

// renameSynced renames from to to and syncs their directory, so that the
// rename survives a crash.
func renameSynced(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		os.Remove(from)
		return err
	}
	d, err := os.Open(filepath.Dir(to))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// errNoBase is a copy directory without a base file: the copy is built.
var errNoBase = errors.New("local copy: no base file")

// openBase maps the base file of dir and checks it whole, stopping when
// ctx is done.
func openBase(ctx context.Context, dir string) (*base, error) {
	f, err := os.Open(filepath.Join(dir, baseName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoBase
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, unmap, err := mapFile(f)
	if err != nil {
		return nil, err
	}
	b, err := checkBase(ctx, data)
	if err != nil {
		unmap()
		return nil, err
	}
	b.unmap = unmap
	return b, nil
}

// checkChunk is how much of a base checkBase reads between two looks at
// its context: a check of 10^7 bindings from a cold disk takes seconds.
const checkChunk = 16 << 20

// checkBase checks data, a whole base file, and returns it opened; it
// stops, returning ctx's error, when ctx is done.
func checkBase(ctx context.Context, data []byte) (*base, error) {
	damaged := func(why string) error {
		return fmt.Errorf("local copy: the base file is damaged (%s): it is built again", why)
	}
	n := len(data)
	if n >= len(baseMagic) && bytes.Equal(data[:len(baseMagic)-1], baseMagic[:len(baseMagic)-1]) && data[len(baseMagic)-1] < baseMagic[len(baseMagic)-1] {
		return nil, fmt.Errorf("local copy: the base file is of format %d, written by an earlier version (this one writes %d): it is built again", data[len(baseMagic)-1], baseMagic[len(baseMagic)-1])
	}
	if n < len(baseMagic)+footerSize || !bytes.Equal(data[:len(baseMagic)], baseMagic) || !bytes.Equal(data[n-len(baseEnd):], baseEnd) {
		return nil, damaged("not a whole base file")
	}
	footer := data[n-footerSize:]
	var crc uint32
	for off := 0; off < n-footerSize; off += checkChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		crc = crc32.Update(crc, castagnoli, data[off:min(off+checkChunk, n-footerSize)])
	}
	crc = crc32.Update(crc, castagnoli, footer[:32])
	if crc != binary.LittleEndian.Uint32(footer[32:]) {
		return nil, damaged("checksum")
	}
	b := &base{seq: binary.LittleEndian.Uint64(footer), id: binary.LittleEndian.Uint64(footer[24:])}
	count, slotsOff := binary.LittleEndian.Uint64(footer[8:]), binary.LittleEndian.Uint64(footer[16:])
	end := uint64(n - footerSize)
	if slotsOff < uint64(len(baseMagic)) || slotsOff > end || (end-slotsOff)%8 != 0 {
		return nil, damaged("index")
	}
	slotCount := (end - slotsOff) / 8
	if slotCount != slotCountFor(count) {
		return nil, damaged("index size")
	}
	b.data, b.slots, b.mask, b.count = data[:slotsOff], data[slotsOff:end], slotCount-1, int(count)
	return b, nil
}

// recordAt returns the encoded binding at offset off and the offset of
// the next.
func (b *base) recordAt(off uint64) (rec []byte, next uint64, err error) {
	if off >= uint64(len(b.data)) {
		return nil, 0, errCorrupt
	}
	n, k := binary.Uvarint(b.data[off:])
	if k <= 0 || n > uint64(len(b.data))-off-uint64(k) {
		return nil, 0, errCorrupt
	}
	start := off + uint64(k)
	return b.data[start : start+n], start + n, nil
}

// lookup returns the binding of key, nil when the base has none.
func (b *base) lookup(key string) (*store.Binding, error) {
	var bd store.Binding
	if found, err := b.lookupInto(key, &bd); !found || err != nil {
		return nil, err
	}
	return &bd, nil
}

// lookupInto is lookup decoding key's binding into into, which it leaves
// alone when the base has none: found says whether it has.
func (b *base) lookupInto(key string, into *store.Binding) (found bool, err error) {
	h := keyhash.String(key)
	tag := h >> slotOffsetBits
	i := h & b.mask
	for range b.mask + 1 {
		s := binary.LittleEndian.Uint64(b.slots[8*i:])
		if s == 0 {
			return false, nil
		}
		if s>>slotOffsetBits == tag {
			rec, _, err := b.recordAt(s&slotOffsetMask - 1)
			if err != nil {
				return false, err
			}
			d := decoder{b: rec}
			if k := d.key(); d.err != nil {
				return false, d.err
			} else if string(k) == key {
				d = decoder{b: rec}
				return true, d.bindingInto(into)
			}
		}
		i = (i + 1) & b.mask
	}
	return false, errCorrupt // no empty slot: more keys than slots were written
}

// each calls fn with every binding of the base, in key order.
func (b *base) each(fn func(*store.Binding) error) error {
	off := uint64(len(baseMagic))
	for range b.count {
		rec, next, err := b.recordAt(off)
		if err != nil {
			return err
		}
		d := decoder{b: rec}
		bd, err := d.binding()
		if err != nil {
			return err
		}
		if err := fn(bd); err != nil {
			return err
		}
		off = next
	}
	if off != uint64(len(b.data)) {
		return errCorrupt
	}
	return nil
}

// close unmaps the file.
func (b *base) close() {
	if b != nil && b.unmap != nil {
		b.unmap()
		b.unmap = nil
	}
}
