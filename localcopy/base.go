package localcopy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/caddy-ark/caddy-ark/store"
)

// The base file: every binding, sorted by key, as of one sequence number
// of the store's history.
//
//	magic (8 bytes)
//	records: uvarint length, then the binding (appendBinding), by key
//	index: the offset of each record, 8 bytes each, in key order
//	footer: seq, count, index offset, id (8 bytes each), CRC-32C of all
//	        that comes before it and of these four (4 bytes), 4 zero
//	        bytes, end magic (8 bytes)
//
// It is written to a temporary file, synced and renamed into place, and
// its checksum is checked when it is opened: a base that is torn or
// damaged is never read, and the copy is built again.
//
// The compiled .arkt format is not used: it holds table entries, which
// have no minted-but-unbound state (Status 0), no version, no reason and
// no writer, it is written from JSON files, and it is hashed, while a
// store's Each gives bindings in key order, which a sorted file takes as
// they come, in one pass and bounded memory.
var (
	baseMagic = []byte("ARKCOPY\x01")
	baseEnd   = []byte("ARKCEND\x01")
)

const footerSize = 48

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// baseName is the base file's name in a copy's directory.
const baseName = "bindings.base"

// base is an open base file, mapped in memory.
type base struct {
	data    []byte
	index   []byte // 8 bytes a record
	seq, id uint64
	count   int
	unmap   func()
	// sample holds the key of every sampleEvery-th record, in memory: a
	// lookup searches it first, then sampleEvery records of the file,
	// so that it touches a few pages of the mapping, not one or two for
	// each step of a search through the whole file.
	sample []string
}

// sampleEvery is how many records of the base one key of its sample
// stands for.
const sampleEvery = 64

// baseWriter writes a base file from bindings given in key order.
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
	bw.anyWrote = true
	bw.last = append(bw.last[:0], b.Key...)
	bw.buf = appendBinding(bw.buf[:0], b)
	var n [binary.MaxVarintLen64]byte
	head := binary.PutUvarint(n[:], uint64(len(bw.buf)))
	if _, err := bw.idxW.Write(binary.LittleEndian.AppendUint64(nil, bw.off)); err != nil {
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

// finish appends the index and the footer for seq and id, syncs the
// file and renames it into place as the copy's base.
func (bw *baseWriter) finish(seq, id uint64) error {
	err := bw.idxW.Flush()
	if err == nil {
		_, err = bw.idx.Seek(0, io.SeekStart)
	}
	if err == nil {
		_, err = io.Copy(bw.w, bw.idx)
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
	footer = binary.LittleEndian.AppendUint64(footer, bw.off)
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

// openBase maps the base file of dir and checks it whole.
func openBase(dir string) (*base, error) {
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
	b, err := checkBase(data)
	if err != nil {
		unmap()
		return nil, err
	}
	b.unmap = unmap
	return b, nil
}

// checkBase checks data, a whole base file, and returns it opened.
func checkBase(data []byte) (*base, error) {
	damaged := func(why string) error {
		return fmt.Errorf("local copy: the base file is damaged (%s): it is built again", why)
	}
	n := len(data)
	if n < len(baseMagic)+footerSize || !bytes.Equal(data[:len(baseMagic)], baseMagic) || !bytes.Equal(data[n-len(baseEnd):], baseEnd) {
		return nil, damaged("not a whole base file")
	}
	footer := data[n-footerSize:]
	crc := crc32.Update(crc32.Checksum(data[:n-footerSize], castagnoli), castagnoli, footer[:32])
	if crc != binary.LittleEndian.Uint32(footer[32:]) {
		return nil, damaged("checksum")
	}
	b := &base{seq: binary.LittleEndian.Uint64(footer), id: binary.LittleEndian.Uint64(footer[24:])}
	count, indexOff := binary.LittleEndian.Uint64(footer[8:]), binary.LittleEndian.Uint64(footer[16:])
	if indexOff > uint64(n-footerSize) || (uint64(n-footerSize)-indexOff)/8 != count || (uint64(n-footerSize)-indexOff)%8 != 0 {
		return nil, damaged("index")
	}
	b.data, b.index, b.count = data[:indexOff], data[indexOff:n-footerSize], int(count)
	b.sample = make([]string, 0, (b.count+sampleEvery-1)/sampleEvery)
	for i := 0; i < b.count; i += sampleEvery {
		rec, err := b.record(i)
		if err != nil {
			return nil, damaged("record")
		}
		d := decoder{b: rec}
		if k := d.key(); d.err == nil {
			b.sample = append(b.sample, string(k))
		} else {
			return nil, damaged("record")
		}
	}
	return b, nil
}

// record returns the encoded binding at position i.
func (b *base) record(i int) ([]byte, error) {
	off := binary.LittleEndian.Uint64(b.index[8*i:])
	if off >= uint64(len(b.data)) {
		return nil, errCorrupt
	}
	n, k := binary.Uvarint(b.data[off:])
	if k <= 0 || n > uint64(len(b.data))-off-uint64(k) {
		return nil, errCorrupt
	}
	start := off + uint64(k)
	return b.data[start : start+n], nil
}

// lookup returns the binding of key, nil when the base has none.
func (b *base) lookup(key string) (*store.Binding, error) {
	// The records from the last sampled key not after key up to the
	// next sampled one hold key if the base does.
	j := sort.Search(len(b.sample), func(i int) bool { return b.sample[i] > key })
	if j == 0 {
		return nil, nil
	}
	lo, hi := (j-1)*sampleEvery, min(j*sampleEvery, b.count)
	kb := []byte(key)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		rec, err := b.record(mid)
		if err != nil {
			return nil, err
		}
		d := decoder{b: rec}
		k := d.key()
		if d.err != nil {
			return nil, d.err
		}
		switch c := bytes.Compare(k, kb); {
		case c == 0:
			d = decoder{b: rec}
			return d.binding()
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return nil, nil
}

// each calls fn with every binding of the base, in key order.
func (b *base) each(fn func(*store.Binding) error) error {
	for i := range b.count {
		rec, err := b.record(i)
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
