package bolt

import (
	"context"
	be "encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// Dump implements store.Dumper from one read transaction: a consistent
// snapshot, held until the dump is written, statistics included. Committed imports are merged
// into the bindings first. It is for a file no Caddy
// has open (`caddy ark store dump`); a running store is backed up with
// Backup, which holds its transaction only while it copies the file.
func (b *boltDB) Dump(ctx context.Context, fn func(*store.Item) error) error {
	if err := b.mergeAll(); err != nil {
		return err
	}
	return b.view(func(tx *bolt.Tx) error {
		if id, _ := tx.Bucket(bucketImports).Cursor().First(); id != nil {
			return errImportPending
		}
		c := tx.Bucket(bucketBindings).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			bd, err := decodeBinding(string(k), v)
			if err != nil {
				return err
			}
			if err := fn(&store.Item{Binding: bd}); err != nil {
				return err
			}
		}
		c = tx.Bucket(bucketHistory).Cursor()
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
		c = tx.Bucket(bucketCounters).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(v) != 8 {
				return fmt.Errorf("a damaged counter in the store: %s", k)
			}
			if err := fn(&store.Item{Counter: &store.Counter{Name: string(k), Value: be.BigEndian.Uint64(v)}}); err != nil {
				return err
			}
		}
		return dumpStats(ctx, tx, fn)
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
			}
		}
	})
	if err != nil {
		return err
	}
	b.notify(nil)
	return nil
}

// mergeAll moves every committed import into the bindings, with its
// history records, as the merger would in the background: a dump holds
// them as bindings with their history.
func (b *boltDB) mergeAll() error {
	for {
		_, more, err := b.mergeChunk()
		if err != nil || !more {
			return err
		}
	}
}

// errImportPending refuses a dump that an import committed during.
var errImportPending = errors.New("an import committed while the dump began: dump again")

// Interface guard.
var _ store.Dumper = (*Store)(nil)
