package bolt

import (
	"context"
	be "encoding/binary"
	"math"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// Changes implements store.Historian. A time is found by a binary search
// over the sequence, reading the time of a record at each step.
func (b *boltDB) Changes(ctx context.Context, q store.ChangesQuery, fn func(*store.Change) error) error {
	want := q.Want
	if want <= 0 {
		want = store.EachBatchCount
	}
	after := q.After
	if after == 0 && !q.Since.IsZero() {
		if err := b.view(func(tx *bolt.Tx) error {
			var err error
			after, err = seqBefore(tx, q)
			return err
		}); err != nil {
			return err
		}
	}
	return store.PageChanges(after, want, func(after uint64) ([]*store.Change, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if after == math.MaxUint64 {
			return nil, nil // none can follow; after+1 would wrap to the first
		}
		var chunk []*store.Change
		err := b.view(func(tx *bolt.Tx) error {
			c := tx.Bucket(bucketHistory).Cursor()
			for k, _ := c.Seek(be.BigEndian.AppendUint64(nil, after+1)); k != nil && len(chunk) < want; k, _ = c.Next() {
				ch, err := readChange(tx, k)
				if err != nil {
					return err
				}
				chunk = append(chunk, ch)
			}
			return nil
		})
		return chunk, err
	}, fn)
}

// seqBefore returns the sequence number just before the first record
// made at or after q.Since: the least s such that the first record after
// s is that recent, or the last sequence when none is.
func seqBefore(tx *bolt.Tx, q store.ChangesQuery) (uint64, error) {
	records := tx.Bucket(bucketHistory)
	c := records.Cursor()
	lo, hi := uint64(0), records.Sequence() // the answer is in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo)/2
		k, _ := c.Seek(be.BigEndian.AppendUint64(nil, mid+1))
		recent := k == nil
		if !recent {
			ch, err := readChange(tx, k)
			if err != nil {
				return 0, err
			}
			recent = !ch.Time.Before(q.Since)
		}
		if recent {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, nil
}

// Interface guard.
var _ store.Historian = (*Store)(nil)
