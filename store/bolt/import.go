package bolt

import (
	"bytes"
	"context"
	be "encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"
)

// An import is staged, committed, then merged.
//
// A bbolt write transaction splits its B+tree nodes only when it commits:
// one transaction of many keys in random order shifts ever larger nodes
// on every insertion (quadratic time), and holds every dirty page until
// it ends (memory as large as the import). Random insertions a chunk a
// transaction would instead rewrite most of the tree at each chunk. So
// staging is an external sort, in buckets no reader looks at: each chunk
// of the input, checked against the store and sorted, is appended to
// bucketRuns as one run; then the runs are merged in key order, a chunk a
// transaction, into the import's bucket under bucketStaged, finding the
// keys repeated across chunks. Time is about linear and memory bounded by
// a chunk, whatever the size of the import.
//
// The commit is one small write transaction: it checks again the keys
// that other writers changed while the import staged and marks the import
// committed in bucketImports. From then on every reader sees the staged
// bindings with the others (view). Until then nothing of it is visible; a
// failed or cancelled import deletes its buckets, and those left by a
// process that stopped are deleted when the file is opened again.
//
// The merger then moves committed bindings into bucketBindings with their
// history records, a chunk a transaction, in the background; a write to a
// staged key moves that key first.
const (
	// The most bindings, and about the most bytes, of a run, and of the
	// merge of runs in one transaction.
	importChunkCount = 50000
	importChunkBytes = 16 << 20

	// The most bindings the merger moves in one transaction.
	mergeChunkCount = 10000

	// The most keys written by others that an import remembers to check
	// again when it commits; past that it checks all it staged.
	touchedMax = 10000
)

// importRun is one import while it stages: its bucket, and the keys that
// other writers bound meanwhile.
type importRun struct {
	id      []byte
	touched []string
	all     bool // check every staged key again: touched overflowed, or another import committed
	staged  int  // the bindings written to runs so far
}

// Import implements Store. It stops when ctx is done or the store closes,
// keeping nothing; what it adds is seen all at once when it returns.
func (b *boltDB) Import(ctx context.Context, next func() (*store.Binding, error), by string) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(b.closing, cancel)()
	run, err := b.beginImport()
	if err != nil {
		return 0, err
	}
	added, keys, err := b.stage(ctx, run, next, by)
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		added, err = b.commitImport(run, added)
	}
	b.mu.Lock()
	delete(b.staging, run)
	b.mu.Unlock()
	if err != nil {
		b.dropImport(run)
		if run.staged >= releaseAfter {
			b.release(run.staged)
		}
		return 0, err
	}
	switch {
	case added > importNotifyMax:
		b.notify(nil)
	case added > 0:
		b.notify(keys)
	}
	b.kickMerger()
	return added, nil
}

// beginImport makes the buckets of a new import.
func (b *boltDB) beginImport() (*importRun, error) {
	run := new(importRun)
	err := b.update(func(tx *bolt.Tx) error {
		staged := tx.Bucket(bucketStaged)
		seq, err := staged.NextSequence()
		if err != nil {
			return err
		}
		run.id = be.BigEndian.AppendUint64(nil, seq)
		if _, err = staged.CreateBucket(run.id); err != nil {
			return err
		}
		_, err = tx.Bucket(bucketRuns).CreateBucket(run.id)
		return err
	})
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.staging[run] = struct{}{}
	b.mu.Unlock()
	return run, nil
}

// stagedBinding is one binding read by an import: its position in the
// input, and the binding as it is to be stored, decoded and encoded.
type stagedBinding struct {
	idx int
	b   *store.Binding
	v   []byte
}

// stage reads next to its end, writing the new bindings as runs, then
// merges the runs into run's staging bucket. It returns how many it
// staged and their first keys, up to importNotifyMax+1. The input is read
// outside any transaction: a slow client never holds the store.
func (b *boltDB) stage(ctx context.Context, run *importRun, next func() (*store.Binding, error), by string) (added int, keys []string, err error) {
	now := time.Now().UTC().Truncate(time.Microsecond) // as putBinding
	var (
		chunk    []stagedBinding
		size     int
		runs     int
		conflict *store.ImportError // the first found while the input is read
	)
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		err := b.update(func(tx *bolt.Tx) error {
			var err error
			conflict, err = writeRun(tx, run.id, uint32(runs), chunk)
			return err
		})
		runs++
		run.staged += len(chunk)
		chunk, size = chunk[:0], 0
		return err
	}
	for i := 0; conflict == nil; i++ {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		in, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, nil, err
		}
		if in == nil {
			return 0, nil, fmt.Errorf("binding %d: nil", i)
		}
		nb := *in
		nb.Version, nb.Updated, nb.By = 1, now, by
		v := encodeBinding(&nb)
		chunk = append(chunk, stagedBinding{idx: i, b: &nb, v: v})
		if size += len(nb.Key) + len(v); len(chunk) == importChunkCount || size >= importChunkBytes {
			if err := flush(); err != nil {
				return 0, nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, nil, err
	}
	if added, keys, err = b.mergeRuns(ctx, run, runs, conflict); err != nil {
		return 0, nil, err
	}
	return added, keys, b.update(func(tx *bolt.Tx) error { return dropRuns(tx, run.id) })
}

// writeRun appends the bindings of chunk that are new, in key order, to
// the runs of import id as run r. A binding whose key the store binds
// already, or the chunk earlier, is left out when it is bound the same
// way; at the first bound differently writeRun stops and returns its
// *ImportError, having written the new bindings before it.
func writeRun(tx *bolt.Tx, id []byte, r uint32, chunk []stagedBinding) (*store.ImportError, error) {
	runs := tx.Bucket(bucketRuns).Bucket(id)
	if runs == nil {
		return nil, errors.New("an import's runs are gone")
	}
	runs.FillPercent = appendFill
	bv := openView(tx)
	first := make(map[string]int, len(chunk)) // key → its new binding in chunk
	var (
		fresh    []int
		conflict *store.ImportError
	)
	for j, s := range chunk {
		var cur *store.Binding
		if p, ok := first[s.b.Key]; ok {
			cur = chunk[p].b
		} else if v, _ := bv.get([]byte(s.b.Key)); v != nil {
			var err error
			if cur, err = decodeBinding(s.b.Key, v); err != nil {
				return nil, err
			}
		}
		if cur == nil {
			first[s.b.Key] = j
			fresh = append(fresh, j)
		} else if !sameBound(cur, s.b) {
			conflict = &store.ImportError{Index: s.idx, Key: s.b.Key, Err: store.ErrConflict}
			break
		}
	}
	slices.SortFunc(fresh, func(x, y int) int { return strings.Compare(chunk[x].b.Key, chunk[y].b.Key) })
	for _, j := range fresh {
		s := chunk[j]
		k := append(be.BigEndian.AppendUint32(make([]byte, 0, 4+len(s.b.Key)), r), s.b.Key...)
		if err := runs.Put(k, stagedRecord(s.idx, s.v)); err != nil {
			return nil, err
		}
	}
	return conflict, nil
}

// stagedRecord is how a staging bucket holds binding v, the idx-th of
// the input.
func stagedRecord(idx int, v []byte) []byte {
	return append(be.BigEndian.AppendUint64(make([]byte, 0, 8+len(v)), uint64(idx)), v...)
}

// mergeRuns merges the n runs of run into its staging bucket, in key
// order, a chunk a transaction, keeping the first binding in the input
// of a key that several runs hold, and returns how many it wrote and
// their first keys, up to importNotifyMax+1. A later binding of the key
// that differs is a conflict; mergeRuns fails with the *ImportError of
// the first conflict in the input, found here or, as conflict, before.
func (b *boltDB) mergeRuns(ctx context.Context, run *importRun, n int, conflict *store.ImportError) (added int, keys []string, err error) {
	pos := make([][]byte, n) // each run's next key in the runs bucket, nil at its end
	for r := range pos {
		pos[r] = be.BigEndian.AppendUint32(nil, uint32(r))
	}
	for done := n == 0; !done; {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		err := b.update(func(tx *bolt.Tx) error {
			runs := tx.Bucket(bucketRuns).Bucket(run.id)
			out := tx.Bucket(bucketStaged).Bucket(run.id)
			if runs == nil || out == nil {
				return errors.New("an import's staging buckets are gone")
			}
			out.FillPercent = appendFill
			heads := make([]*runHead, 0, n)
			for r, p := range pos {
				if p != nil {
					h := &runHead{c: runs.Cursor(), r: uint32(r)}
					h.set(h.c.Seek(p))
					heads = append(heads, h)
				}
			}
			for size, count := 0, 0; count < importChunkCount && size < importChunkBytes; count++ {
				var least []byte
				for _, h := range heads {
					if h.k != nil && (least == nil || bytes.Compare(h.k, least) < 0) {
						least = h.k
					}
				}
				if least == nil {
					done = true
					break
				}
				var group [][]byte // the records of least, one a run
				for _, h := range heads {
					if h.k != nil && bytes.Equal(h.k, least) {
						group = append(group, h.v)
					}
				}
				first, err := firstOf(group, &conflict, least)
				if err != nil {
					return err
				}
				if err := out.Put(least, first); err != nil {
					return err
				}
				if added++; len(keys) <= importNotifyMax {
					keys = append(keys, string(least))
				}
				size += len(least) + len(first)
				for _, h := range heads {
					if h.k != nil && bytes.Equal(h.k, least) {
						h.set(h.c.Next())
					}
				}
			}
			for _, h := range heads {
				pos[h.r] = nil
				if h.k != nil {
					pos[h.r] = append(be.BigEndian.AppendUint32(nil, h.r), h.k...)
				}
			}
			return nil
		})
		if err != nil {
			return 0, nil, err
		}
	}
	if conflict != nil {
		return 0, nil, conflict
	}
	return added, keys, nil
}

// runHead is a run's cursor in mergeRuns, at the key k (without the run's
// prefix) with the record v; k is nil at the run's end.
type runHead struct {
	c    *bolt.Cursor
	r    uint32
	k, v []byte
}

func (h *runHead) set(k, v []byte) {
	if k == nil || be.BigEndian.Uint32(k) != h.r {
		h.k, h.v = nil, nil
		return
	}
	h.k, h.v = k[4:], v
}

// firstOf returns the record of group, the records of one key from
// several runs, that is first in the input. Each other record that binds
// the key differently is a conflict: conflict becomes the first in the
// input of those and the one it held.
func firstOf(group [][]byte, conflict **store.ImportError, key []byte) ([]byte, error) {
	first := slices.MinFunc(group, func(a, b []byte) int { return bytes.Compare(a[:8], b[:8]) })
	if len(group) == 1 {
		return first, nil
	}
	fb, err := decodeBinding(string(key), first[8:])
	if err != nil {
		return nil, err
	}
	for _, rec := range group {
		idx := int(be.BigEndian.Uint64(rec))
		if *conflict != nil && (*conflict).Index < idx {
			continue
		}
		ob, err := decodeBinding(string(key), rec[8:])
		if err != nil {
			return nil, err
		}
		if !sameBound(fb, ob) {
			*conflict = &store.ImportError{Index: idx, Key: string(key), Err: store.ErrConflict}
		}
	}
	return first, nil
}

// commitImport makes run's staged bindings visible, in one transaction,
// after checking again those that another writer bound while it staged,
// and returns how many it added: added, less those bound meanwhile the
// same way. One bound differently fails it with the *ImportError of the
// first such binding in the input.
func (b *boltDB) commitImport(run *importRun, added int) (int, error) {
	err := b.update(func(tx *bolt.Tx) error {
		b.mu.Lock()
		touched, all := run.touched, run.all
		b.mu.Unlock()
		own := tx.Bucket(bucketStaged).Bucket(run.id)
		bv := openView(tx)
		var (
			same     [][]byte
			conflict *store.ImportError
		)
		check := func(key, rec []byte) error {
			v, _ := bv.get(key)
			if v == nil {
				return nil
			}
			cur, err := decodeBinding(string(key), v)
			if err != nil {
				return err
			}
			nb, err := decodeBinding(string(key), rec[8:])
			if err != nil {
				return err
			}
			if sameBound(cur, nb) {
				same = append(same, bytes.Clone(key))
				return nil
			}
			if idx := int(be.BigEndian.Uint64(rec)); conflict == nil || idx < conflict.Index {
				conflict = &store.ImportError{Index: idx, Key: string(key), Err: store.ErrConflict}
			}
			return nil
		}
		if all {
			if err := own.ForEach(check); err != nil {
				return err
			}
		} else {
			for _, k := range touched {
				if rec := own.Get([]byte(k)); rec != nil {
					if err := check([]byte(k), rec); err != nil {
						return err
					}
				}
			}
		}
		if conflict != nil {
			return conflict
		}
		for _, k := range same {
			if err := own.Delete(k); err != nil {
				return err
			}
		}
		added -= len(same)
		// The others staging now have these bindings to check against.
		b.mu.Lock()
		for other := range b.staging {
			if other != run {
				other.all, other.touched = true, nil
			}
		}
		b.mu.Unlock()
		return tx.Bucket(bucketImports).Put(run.id, []byte{1})
	})
	return added, err
}

// touch tells the imports staging that keys were bound, for their commit
// to check them again. Writers call it inside their transaction.
func (b *boltDB) touch(keys ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for run := range b.staging {
		switch {
		case run.all:
		case len(run.touched)+len(keys) > touchedMax:
			run.all, run.touched = true, nil
		default:
			run.touched = append(run.touched, keys...)
		}
	}
}

// dropImport deletes run's staging bucket. A store that closed first
// leaves it to the next open.
func (b *boltDB) dropImport(run *importRun) {
	err := b.update(func(tx *bolt.Tx) error {
		if err := dropRuns(tx, run.id); err != nil {
			return err
		}
		return tx.Bucket(bucketStaged).DeleteBucket(run.id)
	})
	if err != nil && !errors.Is(err, bolt.ErrDatabaseNotOpen) {
		b.logger.Error("dropping an import that failed", zap.Error(err))
	}
}

// dropRuns deletes the runs of import id, if any are left.
func dropRuns(tx *bolt.Tx, id []byte) error {
	if err := tx.Bucket(bucketRuns).DeleteBucket(id); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
		return err
	}
	return nil
}

// dropUncommitted deletes the buckets of imports that were never
// committed: the process stopped while they staged.
func dropUncommitted(tx *bolt.Tx) error {
	staged, marks := tx.Bucket(bucketStaged), tx.Bucket(bucketImports)
	var drop [][]byte
	collect := func(id []byte) error {
		if marks.Get(id) == nil {
			drop = append(drop, bytes.Clone(id))
		}
		return nil
	}
	err := staged.ForEachBucket(collect)
	if err == nil {
		err = tx.Bucket(bucketRuns).ForEachBucket(collect)
	}
	for _, id := range drop {
		if err == nil {
			err = dropRuns(tx, id)
		}
		if err == nil {
			if err = staged.DeleteBucket(id); errors.Is(err, bolt.ErrBucketNotFound) {
				err = nil
			}
		}
	}
	return err
}

// kickMerger wakes the merger.
func (b *boltDB) kickMerger() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// mergeLoop is the merger: woken, it moves every committed import into
// the bindings, until the store closes. Having moved many, it gives back
// the memory that they took (release).
func (b *boltDB) mergeLoop() {
	defer close(b.merged)
	for {
		select {
		case <-b.closing.Done():
			return
		case <-b.kick:
		}
		moved := 0
		for b.closing.Err() == nil {
			n, more, err := b.mergeChunk()
			moved += n
			if err != nil {
				if b.closing.Err() == nil {
					b.logger.Error("merging an import (retried at the next import or open)", zap.Error(err))
				}
				break
			}
			if !more {
				break
			}
		}
		if moved >= releaseAfter && b.closing.Err() == nil {
			b.release(moved)
		}
	}
}

// mergeChunk moves a chunk of the oldest committed import into the
// bindings, n of them, and reports whether more remain.
func (b *boltDB) mergeChunk() (n int, more bool, err error) {
	err = b.update(func(tx *bolt.Tx) error {
		marks, staged := tx.Bucket(bucketImports), tx.Bucket(bucketStaged)
		id, _ := marks.Cursor().First()
		if id == nil {
			return nil
		}
		id = bytes.Clone(id)
		// The bindings come in key order: pages filled as they are
		// written stay filled.
		for _, name := range [][]byte{bucketBindings, bucketKeyHist, bucketStates} {
			tx.Bucket(name).FillPercent = sortedFill
		}
		if bk := staged.Bucket(id); bk != nil {
			var ks, vs [][]byte
			c := bk.Cursor()
			for k, rec := c.First(); k != nil && len(ks) < mergeChunkCount; k, rec = c.Next() {
				ks, vs = append(ks, bytes.Clone(k)), append(vs, bytes.Clone(rec[8:]))
			}
			for i := range ks {
				if err := promote(tx, bk, ks[i], vs[i]); err != nil {
					return err
				}
			}
			n = len(ks)
			if len(ks) == mergeChunkCount {
				more = true
				return nil
			}
			if err := staged.DeleteBucket(id); err != nil {
				return err
			}
		}
		if err := marks.Delete(id); err != nil {
			return err
		}
		k, _ := marks.Cursor().First()
		more = k != nil
		return nil
	})
	if err != nil {
		n = 0 // rolled back
	}
	return n, more, err
}

// promote moves key's binding v from staged, the bucket of a committed
// import, into the bindings with its history record.
func promote(tx *bolt.Tx, staged *bolt.Bucket, key, v []byte) error {
	nb, err := decodeBinding(string(key), v)
	if err != nil {
		return err
	}
	if err := record(tx, nil, nb); err != nil {
		return err
	}
	return staged.Delete(key)
}
