package bolt

import (
	be "encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// How the store file holds bindings and history records.
//
// Format 1 (the first versions, no format recorded in the file) held them
// as JSON. Format 2 holds them in the compact encoding below, about a
// third of JSON's size, and records its number in bucketFile. A file of
// format 1 is read as it is and becomes format 2 when it is opened for
// writing: what changes from then on is written compact, what does not
// stays JSON, and both are read (a JSON value begins with '{', a compact
// one with recordTag). A file of a format newer than formatCurrent is
// refused.
const (
	formatCurrent = 2
	recordTag     = 0x02 // the first byte of a compact binding or history record
)

// The flags of a compact binding.
const (
	flagPassthrough = 1 << iota
	flagMeta        // the metadata follow the target
	flagReason      // the reason follows the target
	flagKey         // the key ends the binding (in a history record, when it is not the record's)
	flagSameTime    // no time: it is the history record's
	flagSameBy      // no By: it is the history record's
)

// The flags of a compact history record.
const (
	flagOld = 1 << iota // the old binding follows
	flagNew             // the new binding follows
)

// errDamaged is what a value that cannot be decoded wraps.
var errDamaged = errors.New("a damaged value in the store")

// encodeBinding returns b in the compact encoding, its key left out: the
// bucket's key names it.
func encodeBinding(b *store.Binding) []byte {
	return appendBinding(make([]byte, 0, 32+len(b.Target)+len(b.By)), b, nil)
}

// appendBinding appends b, compact, to buf. Inside a history record, in
// is that record: the key, time and By that b shares with it are left
// out. Outside one, in is nil and the key is always left out.
func appendBinding(buf []byte, b *store.Binding, in *store.Change) []byte {
	var flags uint64
	if b.Passthrough {
		flags |= flagPassthrough
	}
	if len(b.Meta) > 0 {
		flags |= flagMeta
	}
	if b.Reason != "" {
		flags |= flagReason
	}
	if in != nil {
		if b.Key != in.Key {
			flags |= flagKey
		}
		if b.Updated.Equal(in.Time) {
			flags |= flagSameTime
		}
		if b.By == in.By {
			flags |= flagSameBy
		}
	}
	buf = append(buf, recordTag)
	buf = be.AppendUvarint(buf, flags)
	buf = be.AppendUvarint(buf, uint64(b.Status))
	buf = be.AppendUvarint(buf, b.Version)
	if flags&flagSameTime == 0 {
		buf = appendTime(buf, b.Updated)
	}
	if flags&flagSameBy == 0 {
		buf = appendString(buf, b.By)
	}
	buf = appendString(buf, b.Target)
	if flags&flagReason != 0 {
		buf = appendString(buf, b.Reason)
	}
	if flags&flagMeta != 0 {
		buf = be.AppendUvarint(buf, uint64(len(b.Meta)))
		names := make([]string, 0, len(b.Meta))
		for k := range b.Meta {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			buf = appendString(appendString(buf, k), b.Meta[k])
		}
	}
	if flags&flagKey != 0 {
		buf = appendString(buf, b.Key)
	}
	return buf
}

// decodeBinding decodes v, the binding of key as a bucket holds it, in
// either format.
func decodeBinding(key string, v []byte) (*store.Binding, error) {
	if len(v) > 0 && v[0] == '{' {
		b := new(store.Binding)
		if err := json.Unmarshal(v, b); err != nil {
			return nil, fmt.Errorf("%w: the binding of %s: %v", errDamaged, key, err)
		}
		return b, nil
	}
	d := decoder{buf: v}
	b := d.binding(&store.Change{Key: key})
	if d.err == nil && len(d.buf) > 0 {
		d.fail("bytes after its end")
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w: the binding of %s: %v", errDamaged, key, d.err)
	}
	return b, nil
}

// encodeChange returns ch, a history record, in the compact encoding, its
// Seq left out: the bucket's key is the sequence.
func encodeChange(ch *store.Change) []byte {
	buf := make([]byte, 0, 64+len(ch.Key))
	buf = append(buf, recordTag)
	buf = appendString(buf, ch.Key)
	buf = appendTime(buf, ch.Time)
	buf = appendString(buf, ch.By)
	var flags uint64
	if ch.Old != nil {
		flags |= flagOld
	}
	if ch.New != nil {
		flags |= flagNew
	}
	buf = be.AppendUvarint(buf, flags)
	for _, b := range []*store.Binding{ch.Old, ch.New} {
		if b != nil {
			nested := appendBinding(nil, b, ch)
			buf = append(be.AppendUvarint(buf, uint64(len(nested))), nested...)
		}
	}
	return buf
}

// decodeChange decodes v, the history record of sequence seq (8 bytes,
// big-endian), in either format.
func decodeChange(seq, v []byte) (*store.Change, error) {
	if len(seq) != 8 {
		return nil, fmt.Errorf("%w: a history record at %x", errDamaged, seq)
	}
	n := be.BigEndian.Uint64(seq)
	if len(v) > 0 && v[0] == '{' {
		ch := new(store.Change)
		if err := json.Unmarshal(v, ch); err != nil || ch.Seq != n {
			return nil, fmt.Errorf("%w: the history record %d: %v", errDamaged, n, err)
		}
		return ch, nil
	}
	d := decoder{buf: v}
	if d.byte() != recordTag {
		d.fail("not a history record")
	}
	ch := &store.Change{Seq: n, Key: d.string()}
	ch.Time = d.time()
	ch.By = d.string()
	flags := d.uvarint()
	for _, f := range []struct {
		flag uint64
		to   **store.Binding
	}{{flagOld, &ch.Old}, {flagNew, &ch.New}} {
		if flags&f.flag == 0 || d.err != nil {
			continue
		}
		nested := decoder{buf: d.bytes()}
		*f.to = nested.binding(ch)
		if nested.err == nil && len(nested.buf) > 0 {
			nested.fail("bytes after its end")
		}
		if d.err == nil {
			d.err = nested.err
		}
	}
	if d.err == nil && len(d.buf) > 0 {
		d.fail("bytes after its end")
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w: the history record %d: %v", errDamaged, n, d.err)
	}
	return ch, nil
}

// appendString appends s with its length before it.
func appendString(buf []byte, s string) []byte {
	return append(be.AppendUvarint(buf, uint64(len(s))), s...)
}

// appendTime appends t to the nanosecond: its Unix seconds, then its
// microseconds doubled when it has no finer part (as stores keep times),
// else its nanoseconds doubled plus one.
func appendTime(buf []byte, t time.Time) []byte {
	buf = be.AppendVarint(buf, t.Unix())
	ns := uint64(t.Nanosecond())
	if ns%1000 == 0 {
		return be.AppendUvarint(buf, ns/1000<<1)
	}
	return be.AppendUvarint(buf, ns<<1|1)
}

// decoder reads a compact value; the first problem stops it and stays in
// err, and every read after it returns zero.
type decoder struct {
	buf []byte
	err error
}

func (d *decoder) fail(why string) {
	if d.err == nil {
		d.err = errors.New(why)
	}
	d.buf = nil
}

func (d *decoder) byte() byte {
	if len(d.buf) == 0 {
		d.fail("cut short")
		return 0
	}
	c := d.buf[0]
	d.buf = d.buf[1:]
	return c
}

func (d *decoder) uvarint() uint64 { return number(d, be.Uvarint) }

func (d *decoder) varint() int64 { return number(d, be.Varint) }

// number reads a number in the encoding that read decodes (which returns
// it and its length, or a length of 0 or less when there is none).
func number[T uint64 | int64](d *decoder, read func([]byte) (T, int)) T {
	v, n := read(d.buf)
	if n <= 0 {
		d.fail("cut short or a number too large")
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.buf)) {
		d.fail("cut short")
		return nil
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

func (d *decoder) string() string { return string(d.bytes()) }

func (d *decoder) time() time.Time {
	sec, sub := d.varint(), d.uvarint()
	ns := sub >> 1
	if sub&1 == 0 {
		ns *= 1000
	}
	if ns >= 1e9 {
		d.fail("a time's nanoseconds out of range")
		return time.Time{}
	}
	return time.Unix(sec, int64(ns)).UTC()
}

// binding reads a compact binding; in is the history record it is part
// of, or a record holding only the key of a binding read from a bucket.
func (d *decoder) binding(in *store.Change) *store.Binding {
	if d.byte() != recordTag {
		d.fail("not a binding")
		return nil
	}
	flags := d.uvarint()
	b := &store.Binding{Key: in.Key, Passthrough: flags&flagPassthrough != 0}
	b.Status = int(d.uvarint())
	b.Version = d.uvarint()
	if flags&flagSameTime != 0 {
		b.Updated = in.Time
	} else {
		b.Updated = d.time()
	}
	if flags&flagSameBy != 0 {
		b.By = in.By
	} else {
		b.By = d.string()
	}
	b.Target = d.string()
	if flags&flagReason != 0 {
		b.Reason = d.string()
	}
	if flags&flagMeta != 0 {
		n := d.uvarint()
		if n > uint64(len(d.buf)) { // each pair takes two bytes at least
			d.fail("cut short")
			return nil
		}
		b.Meta = make(map[string]string, n)
		for range n {
			k := d.string()
			b.Meta[k] = d.string()
		}
	}
	if flags&flagKey != 0 {
		b.Key = d.string()
	}
	return b
}
