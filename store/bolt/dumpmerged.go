package bolt

import (
	"bytes"
	"context"
	be "encoding/binary"
	"fmt"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// mergedBindings calls fn with every binding of v in key order, those of
// the committed imports not merged yet (v.merging) among them, as
// mergeChunk would leave them: a key in more than one source takes its
// binding from the last, as the merger moves the imports in that order.
func mergedBindings(ctx context.Context, v view, fn func(*store.Item) error) error {
	type source struct {
		c      *bolt.Cursor
		k, val []byte
		staged bool // a committed import's bucket: each value begins with the input index
	}
	sources := []*source{{c: v.bindings.Cursor()}}
	for _, bk := range v.merging {
		sources = append(sources, &source{c: bk.Cursor(), staged: true})
	}
	for _, s := range sources {
		s.k, s.val = s.c.First()
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var key, val []byte
		for _, s := range sources {
			if s.k == nil || (key != nil && bytes.Compare(s.k, key) > 0) {
				continue
			}
			key, val = s.k, s.val
			if s.staged {
				if len(val) < 8 {
					return fmt.Errorf("%w: the staged binding of %q", errDamaged, s.k)
				}
				val = val[8:]
			}
		}
		if key == nil {
			return nil
		}
		bd, err := decodeBinding(string(key), val)
		if err != nil {
			return err
		}
		for _, s := range sources {
			if bytes.Equal(s.k, key) {
				s.k, s.val = s.c.Next()
			}
		}
		if err := fn(&store.Item{Binding: bd}); err != nil {
			return err
		}
	}
}

// mergedHistory calls fn with every history record of tx in sequence
// order, followed by those that merging the committed imports (merging,
// in the merger's order) would write: one a binding, numbered on from
// the history's sequence, as promote records it.
func mergedHistory(ctx context.Context, tx *bolt.Tx, merging []*bolt.Bucket, fn func(*store.Item) error) error {
	history := tx.Bucket(bucketHistory)
	c := history.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		ch, err := readChange(tx, k)
		if err != nil {
			return err
		}
		if err := fn(&store.Item{Change: ch}); err != nil {
			return err
		}
	}
	seq := history.Sequence()
	for _, bk := range merging {
		c := bk.Cursor()
		for k, rec := c.First(); k != nil; k, rec = c.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			if len(rec) < 8 {
				return fmt.Errorf("%w: the staged binding of %q", errDamaged, k)
			}
			nb, err := decodeBinding(string(k), rec[8:])
			if err != nil {
				return err
			}
			seq++
			// Encoded and read back as the merger's record would be.
			seqKey := be.BigEndian.AppendUint64(nil, seq)
			ch, err := decodeChange(seqKey, encodeChange(&store.Change{Seq: seq, Time: nb.Updated, Key: nb.Key, By: nb.By, New: nb}))
			if err != nil {
				return err
			}
			if err := fn(&store.Item{Change: ch}); err != nil {
				return err
			}
		}
	}
	return nil
}
