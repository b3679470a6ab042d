package bolt

import (
	"bytes"
	"context"
	be "encoding/binary"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// The buckets of batches, made by the first batch: which history records
// each batch made, and the batch of each such record.
var (
	bucketBatchHist = []byte("batchhist") // batch (8 bytes), sequence (8 bytes) → nothing
	bucketSeqBatch  = []byte("seqbatch")  // sequence (8 bytes) → batch (8 bytes)
)

// batchChunk is the most history records BatchChanges reads in one read
// transaction.
const batchChunk = 1000

// ApplyBatch implements store.Batcher in one write transaction.
func (b *boltDB) ApplyBatch(_ context.Context, batch uint64, ws []store.Write) ([]*store.Binding, error) {
	var (
		out  []*store.Binding
		keys []string
	)
	err := b.update(func(tx *bolt.Tx) error {
		out, keys = make([]*store.Binding, len(ws)), nil
		bv := openView(tx)
		for i, w := range ws {
			cur, err := bv.current(tx, w.Binding.Key)
			if err != nil {
				return err
			}
			if cur != nil && cur.State() == store.StateWithdrawn || w.Create && cur != nil || w.IfVersion > 0 && (cur == nil || cur.Version != w.IfVersion) {
				continue
			}
			stored, err := putBinding(tx, cur, w.Binding, w.By)
			if err != nil {
				return err
			}
			if err := markBatch(tx, batch, tx.Bucket(bucketHistory).Sequence()); err != nil {
				return err
			}
			b.touch(w.Binding.Key)
			out[i], keys = stored, append(keys, w.Binding.Key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(keys) > 0 {
		b.notify(keys)
	}
	return out, nil
}

// markBatch records that the history record seq was made in batch.
func markBatch(tx *bolt.Tx, batch, seq uint64) error {
	bh, err := tx.CreateBucketIfNotExists(bucketBatchHist)
	if err != nil {
		return err
	}
	sb, err := tx.CreateBucketIfNotExists(bucketSeqBatch)
	if err != nil {
		return err
	}
	bh.FillPercent, sb.FillPercent = appendFill, appendFill
	seqKey, batchKey := be.BigEndian.AppendUint64(nil, seq), be.BigEndian.AppendUint64(nil, batch)
	if err := bh.Put(append(batchKey, seqKey...), nil); err != nil {
		return err
	}
	return sb.Put(seqKey, batchKey)
}

// BatchChanges implements store.Batcher, batchChunk records per read
// transaction.
func (b *boltDB) BatchChanges(ctx context.Context, batch uint64, fn func(*store.Change) error) error {
	prefix := be.BigEndian.AppendUint64(nil, batch)
	return store.PageChanges(0, batchChunk, func(after uint64) ([]*store.Change, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		from := be.BigEndian.AppendUint64(prefix[:8:8], after)
		var chunk []*store.Change
		err := b.view(func(tx *bolt.Tx) error {
			bh := tx.Bucket(bucketBatchHist)
			if bh == nil {
				return nil
			}
			c := bh.Cursor()
			k, _ := c.Seek(from)
			if bytes.Equal(k, from) {
				k, _ = c.Next()
			}
			for ; k != nil && bytes.HasPrefix(k, prefix) && len(chunk) < batchChunk; k, _ = c.Next() {
				ch, err := readChange(tx, k[8:])
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

// readChange reads the history record of seq (8 bytes), with its batch.
func readChange(tx *bolt.Tx, seq []byte) (*store.Change, error) {
	ch, err := decodeChange(seq, tx.Bucket(bucketHistory).Get(seq))
	if err != nil {
		return nil, err
	}
	if sb := tx.Bucket(bucketSeqBatch); sb != nil {
		if v := sb.Get(seq); len(v) == 8 {
			ch.Batch = be.BigEndian.Uint64(v)
		}
	}
	return ch, nil
}

// Interface guard.
var _ store.Batcher = (*Store)(nil)
