package localcopy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/caddy-ark/caddy-ark/store"
)

// The journal: the changes applied to a base, in the order applied.
//
//	magic (8 bytes), the base's id (8 bytes)
//	records: payload length (4 bytes), CRC-32C of the payload (4 bytes),
//	         payload: seq, batch (uvarints), kind (1 byte), then the
//	         binding (appendBinding) or, for a deletion, the key
//
// Records are appended and synced before they are served. A record that
// is short or fails its checksum is a write torn by a crash: it and what
// follows are cut off, and the history gives them again. A journal whose
// id is not its base's was folded into that base (see compact) and is
// started afresh.
var journalMagic = []byte("ARKJRNL\x01")

const journalName = "bindings.journal"

// The kinds of journal records.
const (
	kindSet     = 1 // the key has the binding given
	kindDelete  = 2 // the key has no binding (a batch given back)
	kindRestore = 3 // the key has the binding given, older or not (a batch given back)
)

// record is one change applied to the copy.
type record struct {
	seq   uint64 // the history's sequence number; for a write of this node or a batch given back, the applied one
	batch uint64
	kind  byte
	key   string
	b     *store.Binding // nil for kindDelete
}

// journal is the open journal file of a copy.
type journal struct {
	f    *os.File
	buf  []byte
	size int64 // the length of its intact records
	n    int   // how many records it holds
}

// openJournal opens the journal of dir for the base of id, returns the
// records it holds, cutting off a torn end, and leaves it ready to
// append. A journal of another base is started afresh.
func openJournal(dir string, id uint64) (*journal, []record, error) {
	path := filepath.Join(dir, journalName)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	head := binary.LittleEndian.AppendUint64(bytes.Clone(journalMagic), id)
	if !bytes.HasPrefix(data, head) {
		j, err := newJournal(dir, id)
		return j, nil, err
	}
	var recs []record
	good := len(head)
	for rest := data[good:]; len(rest) >= 8; {
		n, sum := binary.LittleEndian.Uint32(rest), binary.LittleEndian.Uint32(rest[4:])
		if uint64(n) > uint64(len(rest)-8) || crc32.Checksum(rest[8:8+n], castagnoli) != sum {
			break
		}
		r, err := decodeRecord(rest[8 : 8+n])
		if err != nil {
			break
		}
		recs = append(recs, r)
		good += 8 + int(n)
		rest = rest[8+n:]
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		return nil, nil, err
	}
	if good < len(data) {
		if err := f.Truncate(int64(good)); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	if _, err := f.Seek(int64(good), io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	return &journal{f: f, size: int64(good), n: len(recs)}, recs, nil
}

// newJournal starts an empty journal for the base of id, by rename.
func newJournal(dir string, id uint64) (*journal, error) {
	f, err := os.CreateTemp(dir, ".journal-*")
	if err != nil {
		return nil, err
	}
	_, err = f.Write(binary.LittleEndian.AppendUint64(bytes.Clone(journalMagic), id))
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = renameSynced(f.Name(), filepath.Join(dir, journalName))
	}
	if err != nil {
		removeFile(f)
		return nil, err
	}
	return &journal{f: f, size: int64(len(journalMagic) + 8)}, nil
}

// append writes recs and syncs them.
func (j *journal) append(recs []record) error {
	j.buf = j.buf[:0]
	for _, r := range recs {
		start := len(j.buf)
		j.buf = append(j.buf, make([]byte, 8)...)
		j.buf = binary.AppendUvarint(j.buf, r.seq)
		j.buf = binary.AppendUvarint(j.buf, r.batch)
		j.buf = append(j.buf, r.kind)
		if r.kind == kindDelete {
			j.buf = appendString(j.buf, r.key)
		} else {
			j.buf = appendBinding(j.buf, r.b)
		}
		payload := j.buf[start+8:]
		binary.LittleEndian.PutUint32(j.buf[start:], uint32(len(payload)))
		binary.LittleEndian.PutUint32(j.buf[start+4:], crc32.Checksum(payload, castagnoli))
	}
	_, err := j.f.Write(j.buf)
	if err == nil {
		err = j.f.Sync()
	}
	if err != nil {
		// Cut off what may have been written, so that later records
		// do not follow a torn one.
		if j.f.Truncate(j.size) == nil {
			_, _ = j.f.Seek(j.size, io.SeekStart)
		}
		return err
	}
	j.size += int64(len(j.buf))
	j.n += len(recs)
	return nil
}

// decodeRecord reads a record's payload.
func decodeRecord(p []byte) (record, error) {
	d := decoder{b: p}
	r := record{seq: d.uvarint(), batch: d.uvarint(), kind: d.byte()}
	switch {
	case d.err != nil:
		return r, d.err
	case r.kind == kindDelete:
		r.key = d.string()
		return r, d.err
	case r.kind == kindSet || r.kind == kindRestore:
		b, err := d.binding()
		if err != nil {
			return r, err
		}
		r.b, r.key = b, b.Key
		return r, nil
	}
	return r, errCorrupt
}

// close closes the file.
func (j *journal) close() error { return j.f.Close() }
