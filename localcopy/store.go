package localcopy

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"go.uber.org/zap"
)

// Store is a store read through a local copy: Lookup reads the copy
// (the store itself until the copy is built), so that no lookup waits
// for the store and every identifier is answered through its outages;
// everything else goes to the store. A write is applied to the copy
// before it returns, so the node reads its own writes, and Watch tells
// of what the copy applied, once it has. The resolver's rules are the
// resolver's: it asks Lookup as it asks any store.
type Store struct {
	store.Store
	c *Copy
}

// Wrap returns s read through c, which must follow s. When s backs up
// as one file (store.Backuper), so does what Wrap returns.
func Wrap(s store.Store, c *Copy) store.Store {
	w := &Store{Store: s, c: c}
	if b, ok := s.(store.Backuper); ok {
		return &backupStore{Store: w, b: b}
	}
	return w
}

// backupStore is a Store whose store backs up as one file.
type backupStore struct {
	*Store
	b store.Backuper
}

// Backup implements store.Backuper.
func (s *backupStore) Backup(ctx context.Context) (io.ReadCloser, int64, error) {
	return s.b.Backup(ctx)
}

// Copy returns the copy that s reads.
func (s *Store) Copy() *Copy { return s.c }

// Original returns the store that s reads through its copy (see
// resolve.Copied): what a caller asks of it is never behind the store,
// as the copy may be right after a restart.
func (s *Store) Original() store.Store { return s.Store }

// Lookup implements store.Store from the copy once it serves, else from
// the store. When the store does not answer while a copy is opened (a
// node started during an outage), it waits, until ctx is done, for the
// copy on disk to be checked and to find no server either, and answers
// from it.
func (s *Store) Lookup(ctx context.Context, keys []string) ([]*store.Binding, error) {
	if bs, ok, err := s.LookupLocal(keys); ok {
		return bs, err
	}
	bs, err := s.Store.Lookup(ctx, keys)
	if errors.Is(err, store.ErrUnavailable) && s.c.awaitOpened(ctx) {
		if bs, ok, err := s.LookupLocal(keys); ok {
			return bs, err
		}
	}
	return bs, err
}

// LookupLocal is Lookup when the copy serves, which reads no network
// and needs no context or timeout: ok is false when the copy does not
// serve, and Lookup must ask the store. The resolver reads through it.
func (s *Store) LookupLocal(keys []string) (bs []*store.Binding, ok bool, err error) {
	if !s.c.Serving() {
		return nil, false, nil
	}
	bs, err = s.c.Lookup(keys)
	return bs, true, err
}

// LookupOneLocal is LookupLocal of one key, whose binding it returns by
// value: found is false when the store has none.
func (s *Store) LookupOneLocal(key string) (b store.Binding, found, ok bool, err error) {
	if !s.c.Serving() {
		return b, false, false, nil
	}
	b, found, err = s.c.LookupOne(key)
	return b, found, true, err
}

// Check implements store.Checker: the store's own check.
func (s *Store) Check(ctx context.Context) error {
	if c, ok := s.Store.(store.Checker); ok {
		return c.Check(ctx)
	}
	_, err := s.Store.Lookup(ctx, nil)
	return err
}

// Watch implements store.Store: changed hears of the keys the copy
// applied, after it applied them (of the store's changes while the copy
// is not serving), so that a cache refilled from Lookup is never older
// than the copy.
func (s *Store) Watch(ctx context.Context, changed func(keys []string)) {
	s.c.Watch(ctx, changed)
	s.Store.Watch(ctx, func(keys []string) {
		if !s.c.Serving() {
			changed(keys)
		}
	})
}

// Apply implements store.Store, applying the binding stored to the copy.
func (s *Store) Apply(ctx context.Context, w store.Write) (*store.Binding, error) {
	b, err := s.Store.Apply(ctx, w)
	if err == nil {
		s.c.own([]*store.Binding{b}, 0)
	}
	return b, err
}

// Reserve implements store.Store, applying the bindings stored to the
// copy.
func (s *Store) Reserve(ctx context.Context, bs []store.Binding, by string) ([]bool, error) {
	ok, err := s.Store.Reserve(ctx, bs, by)
	if err != nil {
		return ok, err
	}
	var stored []*store.Binding
	now := time.Now().UTC()
	for i, kept := range ok {
		if kept {
			b := bs[i]
			b.Version, b.Updated, b.By = 1, now, by
			stored = append(stored, &b)
		}
	}
	s.c.own(stored, 0)
	return ok, nil
}

// Import implements store.Store, then waits for the copy to read the
// history that the import added.
func (s *Store) Import(ctx context.Context, next func() (*store.Binding, error), by string) (int, error) {
	n, err := s.Store.Import(ctx, next, by)
	if err == nil && n > 0 {
		s.c.ownUnknown(ctx)
	}
	return n, err
}

// ApplyBatch implements store.Batcher, applying the bindings stored to
// the copy.
func (s *Store) ApplyBatch(ctx context.Context, batch uint64, ws []store.Write) ([]*store.Binding, error) {
	bs, err := s.Store.ApplyBatch(ctx, batch, ws)
	if err == nil {
		s.c.own(bs, batch)
	}
	return bs, err
}

// OpenBatch implements store.Batcher: the batch's bindings are applied
// to the copy when it commits; one that does not gives back, in the
// copy, what the copy took of it from the history.
func (s *Store) OpenBatch(ctx context.Context, batch uint64) (store.BatchWriter, error) {
	w, err := s.Store.OpenBatch(ctx, batch)
	if err != nil {
		return nil, err
	}
	return &batchWriter{BatchWriter: w, s: s, batch: batch}, nil
}

// batchWriter is a batch written through a Store.
type batchWriter struct {
	store.BatchWriter
	s     *Store
	batch uint64
	made  []*store.Binding
	keys  []string
}

// Apply implements store.BatchWriter.
func (w *batchWriter) Apply(ctx context.Context, ws []store.Write) ([]*store.Binding, error) {
	for _, x := range ws {
		w.keys = append(w.keys, x.Binding.Key)
	}
	bs, err := w.BatchWriter.Apply(ctx, ws)
	if err == nil {
		w.made = append(w.made, bs...)
	}
	return bs, err
}

// Commit implements store.BatchWriter.
func (w *batchWriter) Commit(ctx context.Context) error {
	if err := w.BatchWriter.Commit(ctx); err != nil {
		w.s.c.giveBack(w.batch, w.keys, w.s.Store)
		return err
	}
	w.s.c.own(w.made, w.batch)
	return nil
}

// Abort implements store.BatchWriter.
func (w *batchWriter) Abort() error {
	err := w.BatchWriter.Abort()
	w.s.c.giveBack(w.batch, w.keys, w.s.Store)
	return err
}

// own applies bindings that this node's writes stored (nil entries are
// writes not made) under batch, before the write returns. When the
// journal cannot take them, the copy stops serving until the history
// brings them: it must not answer from before a write it acknowledged.
func (c *Copy) own(bs []*store.Binding, batch uint64) {
	var recs []record
	for _, b := range bs {
		if b != nil {
			recs = append(recs, record{batch: batch, kind: kindSet, key: b.Key, b: b})
		}
	}
	// Applied even before the copy serves: the catch-up that lets it
	// serve may have read the history before this write.
	if err := c.apply(recs); errors.Is(err, errNotBuilt) {
		c.unapplied.Store(true)
	} else if err != nil {
		c.stopServing(err)
	}
}

// ownUnknown brings the copy up to date after a write of this node that
// did not say what it stored (an import), before the write returns; if
// it cannot, the copy stops serving until it has.
func (c *Copy) ownUnknown(ctx context.Context) {
	if !c.built() {
		c.unapplied.Store(true)
		return // the first catch-up, after this write, brings it
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.CatchUp(ctx); err != nil {
		c.stopServing(err)
	}
}

// stopServing sends lookups to the store until the copy has caught up.
func (c *Copy) stopServing(err error) {
	c.serving.Store(false)
	c.logger.Error("local copy: a write of this node could not be applied to the copy: lookups go to the store until it has caught up", zap.String("dir", c.dir), zap.Error(err))
	c.Wake()
}

// giveBack restores, for the keys of a batch that did not commit, what
// the store now has, where the copy's binding came from that batch (read
// from the history of a store whose batches show their parts).
func (c *Copy) giveBack(batch uint64, keys []string, s store.Store) {
	c.mu.RLock()
	var mine []string
	for _, k := range keys {
		if e, ok := c.over[k]; ok && e.batch == batch {
			mine = append(mine, k)
		}
	}
	c.mu.RUnlock()
	if len(mine) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bs, err := s.Lookup(ctx, mine)
	if err != nil {
		c.stopServing(err)
		return
	}
	recs := make([]record, len(mine))
	for i, k := range mine {
		recs[i] = record{kind: kindRestore, key: k, b: bs[i]}
		if bs[i] == nil {
			recs[i].kind = kindDelete
		}
	}
	if err := c.apply(recs); err != nil {
		c.stopServing(err)
	}
}
