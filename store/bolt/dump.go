package bolt

import (
	"context"
	be "encoding/binary"
	"fmt"
	"io"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// Dump implements store.Dumper from one read transaction: a consistent
// snapshot, held until the dump is written, statistics included. It
// writes nothing, so that it dumps a file opened read only
// (OpenReadOnly, `caddy ark store dump`) and leaves it as it was: a
// committed import that the merger has not moved into the bindings yet
// is dumped as the merge would leave it (see mergedBindings and
// mergedHistory). A running store is backed up with Backup, which holds
// its transaction only while it copies the file.
func (b *boltDB) Dump(ctx context.Context, fn func(*store.Item) error) error {
	return b.view(func(tx *bolt.Tx) error {
		v := openView(tx)
		if err := mergedBindings(ctx, v, fn); err != nil {
			return err
		}
		if err := mergedHistory(ctx, tx, v.merging, fn); err != nil {
			return err
		}
		if counters := tx.Bucket(bucketCounters); counters != nil {
			c := counters.Cursor()
			for k, val := c.First(); k != nil; k, val = c.Next() {
				if len(val) != 8 {
					return fmt.Errorf("a damaged counter in the store: %s", k)
				}
				if err := fn(&store.Item{Counter: &store.Counter{Name: string(k), Value: be.BigEndian.Uint64(val)}}); err != nil {
					return err
				}
			}
		}
		if err := dumpStats(ctx, tx, fn); err != nil {
			return err
		}
		keys, err := allKeys(tx)
		if err != nil {
			return err
		}
		for i := range keys {
			if err := fn(&store.Item{Key: &keys[i]}); err != nil {
				return err
			}
		}
		return nil
	})
}

// Load implements store.Dumper in one write transaction, which bbolt
// holds in memory until it commits: loading takes about as much memory
// as the dump's size, given back when it is done (release). An import
// staged or committed, not merged yet, makes the store not empty.
func (b *boltDB) Load(ctx context.Context, next func() (*store.Item, error)) error {
	next = store.CheckOrder(next)
	items := 0
	defer func() {
		if items >= releaseAfter {
			b.release(items)
		}
	}()
	err := b.update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketBindings, bucketHistory, bucketKeyHist, bucketCounters, bucketStaged, bucketImports, bucketRuns} {
			if k, _ := tx.Bucket(name).Cursor().First(); k != nil {
				return store.ErrNotEmpty
			}
		}
		if holdsStats(tx) {
			return store.ErrNotEmpty
		}
		if bk := tx.Bucket(bucketAPIKeys); bk != nil {
			if k, _ := bk.Cursor().First(); k != nil {
				return store.ErrNotEmpty
			}
		}
		bindings, records, keyHist, counters := tx.Bucket(bucketBindings), tx.Bucket(bucketHistory), tx.Bucket(bucketKeyHist), tx.Bucket(bucketCounters)
		// One transaction: bbolt splits its pages when it commits, as
		// full as this says, whatever the order of the keys.
		bindings.FillPercent, records.FillPercent, keyHist.FillPercent = sortedFill, appendFill, sortedFill
		tx.Bucket(bucketStates).FillPercent = sortedFill
		var lastSeq uint64
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			it, err := next()
			if err == io.EOF {
				return records.SetSequence(lastSeq)
			}
			if err != nil {
				return err
			}
			items++
			switch {
			case it.Binding != nil:
				err := bindings.Put([]byte(it.Binding.Key), encodeBinding(it.Binding))
				if err == nil {
					err = indexState(tx, nil, it.Binding)
				}
				if err != nil {
					return err
				}
			case it.Change != nil:
				seqKey := be.BigEndian.AppendUint64(nil, it.Change.Seq)
				if err := records.Put(seqKey, encodeChange(it.Change)); err != nil {
					return err
				}
				if err := keyHist.Put(append(append([]byte(it.Change.Key), 0), seqKey...), nil); err != nil {
					return err
				}
				if it.Change.Batch != 0 {
					if err := markBatch(tx, it.Change.Batch, it.Change.Seq); err != nil {
						return err
					}
				}
				lastSeq = it.Change.Seq
			case it.Counter != nil:
				if err := counters.Put([]byte(it.Counter.Name), be.BigEndian.AppendUint64(nil, it.Counter.Value)); err != nil {
					return err
				}
			case it.Stat != nil:
				if err := loadStat(tx, it.Stat); err != nil {
					return err
				}
			case it.Key != nil:
				if err := loadKey(tx, it.Key); err != nil {
					return err
				}
			}
		}
	})
	if err != nil {
		return err
	}
	b.notify(nil)
	return nil
}

// Interface guard.
var _ store.Dumper = (*Store)(nil)
