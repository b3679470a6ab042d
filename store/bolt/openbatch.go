package bolt

import (
	"bytes"
	"context"
	be "encoding/binary"
	"errors"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// A batch opened with OpenBatch is one change made a transaction at a
// time. Its first transaction marks it open in bucketOpen, its last
// (Commit) deletes the mark; in between, each part is written as
// ApplyBatch writes it, recorded with the batch in bucketBatchHist. A
// batch still marked when the file is opened was cut short by a process
// that stopped, and is rolled back then (rollBack), in the transaction
// that opens the file; Abort rolls one back at once.
var bucketOpen = []byte("openbatches") // batch (8 bytes) → nothing: the batches opened and not committed

// boltBatch is a batch opened by OpenBatch.
type boltBatch struct {
	b     *boltDB
	batch uint64
	done  bool // committed or rolled back
}

// OpenBatch implements store.Batcher.
func (b *boltDB) OpenBatch(_ context.Context, batch uint64) (store.BatchWriter, error) {
	err := b.update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists(bucketOpen)
		if err != nil {
			return err
		}
		return bk.Put(be.BigEndian.AppendUint64(nil, batch), nil)
	})
	if err != nil {
		return nil, err
	}
	return &boltBatch{b: b, batch: batch}, nil
}

// Apply implements store.BatchWriter: each call is a transaction of its
// own, seen by readers when it returns.
func (w *boltBatch) Apply(ctx context.Context, ws []store.Write) ([]*store.Binding, error) {
	if w.done {
		return nil, errors.New("the batch is over")
	}
	return w.b.ApplyBatch(ctx, w.batch, ws)
}

// Get implements store.BatchWriter.
func (w *boltBatch) Get(ctx context.Context, key string) (*store.Binding, error) {
	cur, _, err := w.b.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return cur, err
}

// Commit implements store.BatchWriter: the mark is deleted, durably.
func (w *boltBatch) Commit(ctx context.Context) error {
	if w.done {
		return errors.New("the batch is over")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err := w.b.update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketOpen).Delete(be.BigEndian.AppendUint64(nil, w.batch))
	})
	if err == nil {
		w.done = true
	}
	return err
}

// Abort implements store.BatchWriter.
func (w *boltBatch) Abort() error {
	if w.done {
		return nil
	}
	var keys []string
	err := w.b.update(func(tx *bolt.Tx) error {
		var err error
		keys, err = rollBack(tx, w.batch)
		return err
	})
	if err != nil {
		return err
	}
	w.done = true
	if len(keys) > 0 {
		w.b.notify(keys)
	}
	return nil
}

// rollBackOpen rolls back every batch left open, in the transaction that
// opens the file, and returns their numbers and how many bindings it
// gave back.
func rollBackOpen(tx *bolt.Tx) (batches []uint64, restored int, err error) {
	bk := tx.Bucket(bucketOpen)
	if bk == nil {
		return nil, 0, nil
	}
	var open [][]byte
	if err := bk.ForEach(func(k, _ []byte) error {
		open = append(open, bytes.Clone(k))
		return nil
	}); err != nil {
		return nil, 0, err
	}
	for _, k := range open {
		if len(k) != 8 {
			return nil, 0, errDamaged
		}
		batch := be.BigEndian.Uint64(k)
		keys, err := rollBack(tx, batch)
		if err != nil {
			return nil, 0, err
		}
		batches, restored = append(batches, batch), restored+len(keys)
	}
	return batches, restored, nil
}

// rollBack undoes what batch made, newest first, and deletes its mark:
// each binding it changed gets back the binding it had (version and all),
// and the history record of the change is deleted, unless the binding
// has changed since, which then stays as it is, with its history. It
// returns the keys given back.
func rollBack(tx *bolt.Tx, batch uint64) ([]string, error) {
	prefix := be.BigEndian.AppendUint64(nil, batch)
	var keys []string
	if bh := tx.Bucket(bucketBatchHist); bh != nil {
		var seqs [][]byte
		c := bh.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			seqs = append(seqs, bytes.Clone(k[8:]))
		}
		bindings, records := tx.Bucket(bucketBindings), tx.Bucket(bucketHistory)
		for i := len(seqs) - 1; i >= 0; i-- {
			seq := seqs[i]
			ch, err := decodeChange(seq, records.Get(seq))
			if err != nil {
				return nil, err
			}
			v := bindings.Get([]byte(ch.Key))
			if v == nil {
				continue
			}
			cur, err := decodeBinding(ch.Key, v)
			if err != nil {
				return nil, err
			}
			if cur.Version != ch.New.Version {
				continue // changed since, by a write that was acknowledged
			}
			if ch.Old == nil {
				err = bindings.Delete([]byte(ch.Key))
				if err == nil {
					err = tx.Bucket(bucketStates).Delete(stateKey(cur))
				}
			} else {
				err = bindings.Put([]byte(ch.Key), encodeBinding(ch.Old))
				if err == nil {
					err = indexState(tx, cur, ch.Old)
				}
			}
			if err != nil {
				return nil, err
			}
			for _, del := range []struct {
				bucket []byte
				key    []byte
			}{
				{bucketHistory, seq},
				{bucketKeyHist, append(append([]byte(ch.Key), 0), seq...)},
				{bucketBatchHist, append(bytes.Clone(prefix), seq...)},
				{bucketSeqBatch, seq},
			} {
				if err := tx.Bucket(del.bucket).Delete(del.key); err != nil {
					return nil, err
				}
			}
			keys = append(keys, ch.Key)
		}
	}
	if bk := tx.Bucket(bucketOpen); bk != nil {
		if err := bk.Delete(prefix); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
