package localcopy

import (
	"encoding/binary"
	"errors"
	"slices"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// errCorrupt is a record of the copy that does not decode: the files were
// damaged after they were checked, or a bug wrote them.
var errCorrupt = errors.New("local copy: a record does not decode")

// appendBinding appends b encoded: its key, target, status, passthrough,
// reason, metadata (by key), version, time of update and writer.
func appendBinding(buf []byte, b *store.Binding) []byte {
	buf = appendString(buf, b.Key)
	buf = appendString(buf, b.Target)
	buf = binary.AppendUvarint(buf, uint64(b.Status))
	var flags byte
	if b.Passthrough {
		flags = 1
	}
	buf = append(buf, flags)
	buf = appendString(buf, b.Reason)
	buf = binary.AppendUvarint(buf, uint64(len(b.Meta)))
	keys := make([]string, 0, len(b.Meta))
	for k := range b.Meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		buf = appendString(buf, k)
		buf = appendString(buf, b.Meta[k])
	}
	buf = binary.AppendUvarint(buf, b.Version)
	var updated int64
	if !b.Updated.IsZero() {
		updated = b.Updated.UnixNano()
	}
	buf = binary.AppendVarint(buf, updated)
	return appendString(buf, b.By)
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// decoder reads what appendBinding wrote; its first error sticks.
type decoder struct {
	b   []byte
	err error
	// str, when set, is what b was when binding began, as one string:
	// the strings of the binding are cut from it, one allocation for the
	// record instead of one for each string.
	str string
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errCorrupt
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errCorrupt
		return ""
	}
	var s string
	if d.str != "" {
		at := len(d.str) - len(d.b)
		s = d.str[at : at+int(n)]
	} else {
		s = string(d.b[:n])
	}
	d.b = d.b[n:]
	return s
}

// key reads a string without copying it, for comparing keys.
func (d *decoder) key() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errCorrupt
		return nil
	}
	k := d.b[:n]
	d.b = d.b[n:]
	return k
}

// binding decodes a binding that appendBinding encoded.
// Its strings share one copy of the record.
func (d *decoder) binding() (*store.Binding, error) {
	b := new(store.Binding)
	if err := d.bindingInto(b); err != nil {
		return nil, err
	}
	return b, nil
}

// bindingInto is binding decoding into b, which it overwrites whole.
func (d *decoder) bindingInto(b *store.Binding) error {
	d.str = string(d.b)
	err := d.fields(b)
	d.str = ""
	return err
}

// fields decodes a binding's fields into b, in appendBinding's order.
func (d *decoder) fields(b *store.Binding) error {
	*b = store.Binding{Key: d.string(), Target: d.string(), Status: int(d.uvarint())}
	b.Passthrough = d.byte()&1 != 0
	b.Reason = d.string()
	if n := d.uvarint(); n > 0 && d.err == nil {
		if n > uint64(len(d.b)) {
			return errCorrupt
		}
		b.Meta = make(map[string]string, n)
		for range n {
			k := d.string()
			b.Meta[k] = d.string()
		}
	}
	b.Version = d.uvarint()
	if ns := d.varint(); ns != 0 {
		b.Updated = time.Unix(0, ns).UTC()
	}
	b.By = d.string()
	return d.err
}
