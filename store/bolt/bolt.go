package bolt

import (
	"bytes"
	"context"
	be "encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	bolt "go.etcd.io/bbolt"
)

func init() {
	caddy.RegisterModule(new(Store))
}

// boltFiles holds the open bbolt files by absolute path. bbolt locks its
// file, and Caddy provisions a new config before it cleans up the old one:
// a reload, or two handlers with the same file, share one open database
// instead of waiting on their own lock.
var boltFiles = caddy.NewUsagePool()

// The buckets of a store file.
var (
	bucketBindings = []byte("bindings") // key → Binding (JSON)
	bucketHistory  = []byte("history")  // sequence (8 bytes, big-endian) → Change (JSON)
	bucketKeyHist  = []byte("keyhist")  // key, 0, sequence → nothing: each key's history
	bucketCounters = []byte("counters") // name → value (8 bytes, big-endian)
)

// boltOpenTimeout is how long opening a store file waits for another
// process's lock on it before giving up.
const boltOpenTimeout = 5 * time.Second

// importNotifyMax is the most keys an import names to Watch; a larger
// import tells watchers to forget everything.
const importNotifyMax = 1000

// Store is the embedded store: one bbolt file on this machine, the
// default when no other store is configured. It keeps bindings, minter
// counters and an append-only history of every change with its change
// sequence. Every change is on disk (fsync) before it returns.
//
// In the Caddyfile: `store bolt [<path>]`.
type Store struct {
	// The database file. Default: ark-store.db in Caddy's data
	// directory. Handlers and configs naming the same file share it.
	Path string `json:"path,omitempty"`

	*boltDB
	poolKey string
}

// CaddyModule returns the Caddy module information.
func (*Store) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "ark.stores.bolt",
		New: func() caddy.Module { return new(Store) },
	}
}

// UnmarshalCaddyfile reads `bolt [<path>]`. A relative path is relative
// to the Caddyfile, as table paths are.
func (s *Store) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the backend's name
	if d.NextArg() {
		s.Path = d.Val()
		if !filepath.IsAbs(s.Path) {
			s.Path = filepath.Join(filepath.Dir(d.File()), s.Path)
		}
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	if d.NextBlock(0) {
		return d.Errf("store bolt takes no block")
	}
	return nil
}

// Provision opens the store file, or shares it with the configs that
// have it open already.
func (s *Store) Provision(caddy.Context) error {
	path := s.Path
	if path == "" {
		path = filepath.Join(caddy.AppDataDir(), "ark-store.db")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("store bolt %s: %w", path, err)
	}
	v, _, err := boltFiles.LoadOrNew(abs, func() (caddy.Destructor, error) { return openBolt(abs) })
	if err != nil {
		return fmt.Errorf("store bolt %s: %w", path, err)
	}
	s.boltDB, s.poolKey = v.(*boltDB), abs
	return nil
}

// Cleanup lets go of the file; the last user closes it.
func (s *Store) Cleanup() error {
	if s.poolKey == "" {
		return nil
	}
	_, err := boltFiles.Delete(s.poolKey)
	s.poolKey, s.boltDB = "", nil
	return err
}

// DB returns the open database, shared with every handler of the file in
// this process: a tool or test that reads or repairs the file while Caddy
// runs uses it, since a second open would wait on bbolt's file lock.
func (s *Store) DB() *bolt.DB { return s.db }

// boltDB is one open store file, shared through boltFiles.
type boltDB struct {
	db       *bolt.DB
	mu       sync.Mutex
	watchers map[*boltWatcher]struct{}
}

// boltWatcher is one Watch call.
type boltWatcher struct {
	ctx     context.Context
	changed func(keys []string)
}

// openBolt opens or creates the store file at path and its buckets.
func openBolt(path string) (*boltDB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: boltOpenTimeout})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("another process holds the file (waited %v): %w", boltOpenTimeout, err)
	}
	if err != nil {
		return nil, err
	}
	// Concurrent writes (many minters, bulk binds) share one transaction
	// and one fsync; a lone write waits at most this long for company.
	db.MaxBatchDelay = time.Millisecond
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketBindings, bucketHistory, bucketKeyHist, bucketCounters} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &boltDB{db: db, watchers: map[*boltWatcher]struct{}{}}, nil
}

// OpenReadOnly opens the store file at path for reading only, without
// Caddy, for tools such as `caddy ark check --store`: it creates and
// changes nothing. bbolt lets readers share a file but not with a writer:
// while a Caddy has the file open it waits, at most a few seconds, and
// fails. close releases the file.
func OpenReadOnly(path string) (s store.Store, close func() error, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: boltOpenTimeout, ReadOnly: true})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, nil, fmt.Errorf("%s: a running Caddy holds the file (waited %v): check through its API instead: %w", path, boltOpenTimeout, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketBindings) == nil {
			return errors.New("not a store file: it has no bindings")
		}
		return nil
	}); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return &boltDB{db: db, watchers: map[*boltWatcher]struct{}{}}, db.Close, nil
}

// Destruct closes the file once no config uses it.
func (b *boltDB) Destruct() error { return b.db.Close() }

// Lookup implements Store.
func (b *boltDB) Lookup(_ context.Context, keys []string) ([]*store.Binding, error) {
	out := make([]*store.Binding, len(keys))
	err := b.db.View(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketBindings)
		for i, k := range keys {
			if v := bk.Get([]byte(k)); v != nil {
				var err error
				if out[i], err = decodeBinding(v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return out, err
}

// Get implements Store.
func (b *boltDB) Get(_ context.Context, key string) (*store.Binding, []store.Change, error) {
	var cur *store.Binding
	var hist []store.Change
	err := b.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketBindings).Get([]byte(key))
		if v == nil {
			return store.ErrNotFound
		}
		var err error
		if cur, err = decodeBinding(v); err != nil {
			return err
		}
		prefix := append([]byte(key), 0)
		records := tx.Bucket(bucketHistory)
		c := tx.Bucket(bucketKeyHist).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			var ch store.Change
			if err := json.Unmarshal(records.Get(k[len(prefix):]), &ch); err != nil {
				return fmt.Errorf("history of %s: %w", key, err)
			}
			hist = append(hist, ch)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return cur, hist, nil
}

// Apply implements Store.
func (b *boltDB) Apply(_ context.Context, w store.Write) (*store.Binding, error) {
	var stored *store.Binding
	err := b.db.Batch(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketBindings)
		var cur *store.Binding
		if v := bk.Get([]byte(w.Binding.Key)); v != nil {
			var err error
			if cur, err = decodeBinding(v); err != nil {
				return err
			}
		}
		switch {
		case cur != nil && cur.Status == 410:
			return store.ErrWithdrawn
		case w.Create && cur != nil, w.IfVersion > 0 && (cur == nil || cur.Version != w.IfVersion):
			return store.ErrPrecondition
		}
		var err error
		stored, err = putBinding(tx, cur, w.Binding, w.By)
		return err
	})
	if err != nil {
		return nil, err
	}
	b.notify([]string{w.Binding.Key})
	return stored, nil
}

// Reserve implements Store.
func (b *boltDB) Reserve(_ context.Context, bs []store.Binding, by string) ([]bool, error) {
	var stored []bool
	err := b.db.Batch(func(tx *bolt.Tx) error {
		stored = make([]bool, len(bs)) // Batch may run this more than once
		bk := tx.Bucket(bucketBindings)
		for i := range bs {
			if bk.Get([]byte(bs[i].Key)) != nil {
				continue
			}
			if _, err := putBinding(tx, nil, bs[i], by); err != nil {
				return err
			}
			stored[i] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var keys []string
	for i, ok := range stored {
		if ok {
			keys = append(keys, bs[i].Key)
		}
	}
	if len(keys) > 0 {
		b.notify(keys)
	}
	return stored, nil
}

// Count implements Store. Reading a counter (n = 0) writes nothing.
func (b *boltDB) Count(_ context.Context, name string, n uint64) (uint64, error) {
	var before uint64
	if n == 0 {
		err := b.db.View(func(tx *bolt.Tx) error {
			if v := tx.Bucket(bucketCounters).Get([]byte(name)); len(v) == 8 {
				before = be.BigEndian.Uint64(v)
			}
			return nil
		})
		return before, err
	}
	err := b.db.Batch(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketCounters)
		before = 0
		if v := bk.Get([]byte(name)); len(v) == 8 {
			before = be.BigEndian.Uint64(v)
		}
		if before+n < before {
			return fmt.Errorf("counter %s would overflow", name)
		}
		return bk.Put([]byte(name), be.BigEndian.AppendUint64(nil, before+n))
	})
	return before, err
}

// Each implements Store. It reads the bindings a batch at a time, each in a
// read transaction of its own, and calls fn between them: fn may write to
// a client that reads slowly or not at all, and a read transaction held
// that long would stop every write that grows the file, and then every
// read waiting behind that write.
func (b *boltDB) Each(ctx context.Context, fn func(*store.Binding) error) error {
	var after []byte // the last key of the batch before
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch, last, err := b.batchAfter(after)
		if err != nil {
			return err
		}
		for _, bd := range batch {
			if err := fn(bd); err != nil {
				return err
			}
		}
		if last == nil {
			return nil
		}
		after = last
	}
}

// batchAfter returns the bindings in key order after the key after (from
// the first when it is nil), up to a batch's size, and the last key it
// returns when more may follow, nil at the end.
func (b *boltDB) batchAfter(after []byte) (batch []*store.Binding, last []byte, err error) {
	err = b.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketBindings).Cursor()
		k, v := c.First()
		if after != nil {
			if k, v = c.Seek(after); bytes.Equal(k, after) {
				k, v = c.Next()
			}
		}
		size, prev := 0, []byte(nil)
		for ; k != nil; k, v = c.Next() {
			if len(batch) == store.EachBatchCount || size >= store.EachBatchBytes {
				last = bytes.Clone(prev) // k is the transaction's, valid only inside it
				return nil
			}
			bd, err := decodeBinding(v)
			if err != nil {
				return err
			}
			batch, size, prev = append(batch, bd), size+len(v), k
		}
		return nil
	})
	return batch, last, err
}

// Import implements Store.
func (b *boltDB) Import(_ context.Context, next func() (*store.Binding, error), by string) (int, error) {
	var keys []string
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketBindings)
		for i := 0; ; i++ {
			in, err := next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if v := bk.Get([]byte(in.Key)); v != nil {
				cur, err := decodeBinding(v)
				if err != nil {
					return err
				}
				if !sameBound(cur, in) {
					return &store.ImportError{Index: i, Key: in.Key, Err: store.ErrConflict}
				}
				continue
			}
			if _, err := putBinding(tx, nil, *in, by); err != nil {
				return err
			}
			keys = append(keys, in.Key)
		}
	})
	if err != nil {
		return 0, err
	}
	switch {
	case len(keys) > importNotifyMax:
		b.notify(nil)
	case len(keys) > 0:
		b.notify(keys)
	}
	return len(keys), nil
}

// Watch implements Store: a file on this machine changes only through
// this process, so changed hears of the store's own writes.
func (b *boltDB) Watch(ctx context.Context, changed func(keys []string)) {
	w := &boltWatcher{ctx: ctx, changed: changed}
	b.mu.Lock()
	b.watchers[w] = struct{}{}
	b.mu.Unlock()
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		delete(b.watchers, w)
		b.mu.Unlock()
	})
}

// notify tells the watchers whose context is not done about keys.
func (b *boltDB) notify(keys []string) {
	b.mu.Lock()
	ws := make([]*boltWatcher, 0, len(b.watchers))
	for w := range b.watchers {
		ws = append(ws, w)
	}
	b.mu.Unlock()
	for _, w := range ws {
		if w.ctx.Err() == nil {
			w.changed(keys)
		}
	}
}

// putBinding stores nb as the binding of its key, replacing cur (nil for
// a new key), with its history record, and returns it as stored.
func putBinding(tx *bolt.Tx, cur *store.Binding, nb store.Binding, by string) (*store.Binding, error) {
	nb.Version, nb.Updated, nb.By = 1, time.Now().UTC(), by
	if cur != nil {
		nb.Version = cur.Version + 1
	}
	v, err := json.Marshal(&nb)
	if err != nil {
		return nil, err
	}
	if err := tx.Bucket(bucketBindings).Put([]byte(nb.Key), v); err != nil {
		return nil, err
	}
	records := tx.Bucket(bucketHistory)
	seq, err := records.NextSequence()
	if err != nil {
		return nil, err
	}
	rec, err := json.Marshal(&store.Change{Seq: seq, Time: nb.Updated, Key: nb.Key, By: by, Old: cur, New: &nb})
	if err != nil {
		return nil, err
	}
	seqKey := be.BigEndian.AppendUint64(nil, seq)
	if err := records.Put(seqKey, rec); err != nil {
		return nil, err
	}
	return &nb, tx.Bucket(bucketKeyHist).Put(append(append([]byte(nb.Key), 0), seqKey...), nil)
}

func decodeBinding(v []byte) (*store.Binding, error) {
	b := new(store.Binding)
	if err := json.Unmarshal(v, b); err != nil {
		return nil, fmt.Errorf("a damaged binding in the store: %w", err)
	}
	return b, nil
}

// sameBound reports whether a and b bind their key the same way.
func sameBound(a, b *store.Binding) bool {
	return a.Target == b.Target && a.Status == b.Status && a.Passthrough == b.Passthrough &&
		a.Reason == b.Reason && maps.Equal(a.Meta, b.Meta)
}

// Interface guards.
var (
	_ store.Store           = (*Store)(nil)
	_ caddy.Provisioner     = (*Store)(nil)
	_ caddy.CleanerUpper    = (*Store)(nil)
	_ caddyfile.Unmarshaler = (*Store)(nil)
)
