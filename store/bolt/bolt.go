package bolt

import (
	"bytes"
	"context"
	be "encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/osfile"
	"github.com/caddy-ark/caddy-ark/internal/suggest"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"
)

func init() {
	caddy.RegisterModule(new(Store))
}

// boltFiles holds the open bbolt files by absolute path. bbolt locks its
// file, and Caddy provisions a new config before it cleans up the old one:
// a reload, or two handlers with the same file, share one open database
// instead of waiting on their own lock.
var boltFiles = caddy.NewUsagePool()

// The buckets of a store file. Bindings and history records are in the
// file's format (codec.go).
var (
	bucketFile     = []byte("file")     // "format" → the file's format (8 bytes, big-endian); none in format 1
	bucketBindings = []byte("bindings") // key → Binding
	bucketHistory  = []byte("history")  // sequence (8 bytes, big-endian) → Change
	bucketKeyHist  = []byte("keyhist")  // key, 0, sequence → nothing: each key's history
	bucketCounters = []byte("counters") // name → value (8 bytes, big-endian)
	bucketStaged   = []byte("staged")   // import id (8 bytes) → bucket: key → input index (8 bytes), Binding
	bucketImports  = []byte("imports")  // import id → 1: the staged imports that are committed, until merged
	bucketRuns     = []byte("runs")     // import id → bucket: run (4 bytes), key → as in bucketStaged
)

// boltOpenTimeout is how long opening a store file waits for another
// process's lock on it before giving up.
const boltOpenTimeout = 5 * time.Second

// boltCheckTimeout bounds the consistency check of a store file when it is
// opened (see checkFile).
const boltCheckTimeout = time.Minute

// importNotifyMax is the most keys an import names to Watch; a larger
// import tells watchers to forget everything.
const importNotifyMax = 1000

// Store is the embedded store: one bbolt file on this machine, the
// default when no other store is configured. It keeps bindings, minter
// counters and an append-only history of every change with its change
// sequence. Every change is on disk (fsync) before it returns.
//
// In the Caddyfile: `store bolt [<path>] [{ skip_check }]`.
//
// Opening a file checks it, or with SkipCheck reads its bindings, and
// refuses a damaged one. A call that panics or faults on memory inside
// bbolt, as reads of a file damaged since it was opened do, fails with
// ErrUnavailable (503) and marks the store damaged: from then on every
// call fails so, since a damaged file may hold what it fails to find,
// until Caddy opens a good file again. A write refuses with
// ErrUnavailable when the path no longer names the file the store has
// open (deleted or replaced while open): it would be lost with the
// unlinked file. A fault inside bbolt while it writes or grows the
// file (its remap) is a Go runtime fatal error that nothing can recover:
// it ends the process, which is why the check at open is the defence.
type Store struct {
	// The database file. Default: ark-store.db in Caddy's data
	// directory. Handlers and configs naming the same file share it.
	Path string `json:"path,omitempty"`

	// SkipCheck skips the consistency check of the file when it is
	// opened. The check reads every page (bbolt's tx.Check, and a walk
	// of every bucket), about a second per few hundred MB, and a file it
	// cannot check within a minute is refused; set this for files that
	// large, and check them offline instead (`bbolt check <file>`).
	// The file's bindings are still read and decoded once when it is
	// opened, without a time limit (the history and the other buckets
	// are not), and a file whose bindings cannot be read, or come out of
	// order, is refused as damaged: a damaged page can otherwise make a
	// bound identifier answer 404 or a garbled target, with no fault to
	// tell. Both happen when the process opens the file, not at each
	// reload, since the configs that name it share it open.
	SkipCheck bool `json:"skip_check,omitempty"`

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

// subdirectives are the bolt store block's subdirectives.
var subdirectives = []string{"skip_check"}

// UnmarshalCaddyfile reads `bolt [<path>] [{ skip_check }]`. A relative
// path is relative to the Caddyfile, as table paths are.
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
	for d.NextBlock(0) {
		switch d.Val() {
		case "skip_check":
			if d.NextArg() {
				return d.ArgErr()
			}
			s.SkipCheck = true
		default:
			return d.Errf("store bolt: unknown subdirective %q%s (the block takes %s)", d.Val(), suggest.DidYouMean(d.Val(), subdirectives), suggest.List(subdirectives))
		}
	}
	return nil
}

// Provision opens the store file, or shares it with the configs that
// have it open already; provisioned with a store.OpenLater, it leaves the
// file alone and gives that step to it.
func (s *Store) Provision(ctx caddy.Context) error {
	path := s.Path
	if path == "" {
		path = filepath.Join(caddy.AppDataDir(), "ark-store.db")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("store bolt %s: %w", path, err)
	}
	open := func() error {
		v, _, err := boltFiles.LoadOrNew(abs, func() (caddy.Destructor, error) { return openBolt(abs, s.SkipCheck) })
		if err != nil {
			return fmt.Errorf("store bolt %s: %w", path, err)
		}
		s.boltDB, s.poolKey = v.(*boltDB), abs
		return nil
	}
	if ctx.Context != nil {
		if later, ok := ctx.Value(store.OpenLaterKey{}).(store.OpenLater); ok {
			later(open)
			return nil
		}
	}
	return open()
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
	staging  map[*importRun]struct{} // the imports staging, under mu

	closing context.Context    // done once Destruct begins: imports stop
	close   context.CancelFunc // makes closing done
	kick    chan struct{}      // wakes the merger (buffered, 1)
	merged  chan struct{}      // closed when the merger has stopped
	logger  *zap.Logger

	path     string      // the file's path, "" when opened read only
	dev, ino uint64      // the file's identity when opened, 0 where unknown
	damaged  atomic.Bool // a call panicked inside bbolt: every call fails
	gone     atomic.Bool // the path no longer names the file (logged once)

	written atomic.Int64 // bindings written one at a time since memory was last given back (see wrote)
	quiet   *time.Timer  // gives that memory back once writes pause; nil when opened read only
}

// boltWatcher is one Watch call.
type boltWatcher struct {
	ctx     context.Context
	changed func(keys []string)
}

// openBolt opens or creates the store file at path and its buckets; an
// existing file is checked first, or with skipCheck only its bindings are
// read (readBindings). A new file is logged:
// a store that was there before and is not any more (deleted, or a data
// directory that moved) starts empty.
func openBolt(path string, skipCheck bool) (*boltDB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(path)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: boltOpenTimeout})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("another process holds the file (waited %v): %w", boltOpenTimeout, err)
	}
	if err != nil {
		return nil, err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		caddy.Log().Named("ark.stores.bolt").Warn("store file created new: it holds no bindings, counters or history; if a store was expected here, stop Caddy and restore it",
			zap.String("path", path))
	} else if skipCheck {
		if err := db.View(func(tx *bolt.Tx) error { _, err := fileFormat(tx); return err }); err != nil {
			db.Close()
			return nil, err // a newer version's file is not damaged: say which it is
		}
		if err := readBindings(db); err != nil {
			db.Close()
			return nil, fmt.Errorf("the file is damaged (reading its bindings failed: %w): it was refused rather than served from; restore it from a backup, or repair a copy offline (bbolt check, bbolt compact)", err)
		}
	} else if err := checkFile(db, boltCheckTimeout); err != nil {
		return nil, err // checkFile closes db
	}
	fi, err := os.Stat(path)
	if err != nil {
		db.Close()
		return nil, err
	}
	// Concurrent writes (many minters, bulk binds) share one transaction
	// and one fsync; a lone write waits at most this long for company.
	db.MaxBatchDelay = time.Millisecond
	var upgraded uint64 // the format of a file upgraded, 0 for none
	var (
		rolledBack []uint64 // the batches left open by a process that stopped
		restored   int      // the bindings they changed, given back
	)
	err = db.Update(func(tx *bolt.Tx) error {
		format, err := fileFormat(tx)
		if err != nil {
			return err
		}
		for _, name := range [][]byte{bucketFile, bucketBindings, bucketHistory, bucketKeyHist, bucketCounters, bucketStaged, bucketImports, bucketRuns} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		if format < formatCurrent {
			if err := tx.Bucket(bucketFile).Put(keyFormat, be.BigEndian.AppendUint64(nil, formatCurrent)); err != nil {
				return err
			}
			if format > 0 && tx.Bucket(bucketBindings).Stats().KeyN > 0 {
				upgraded = format
			}
		}
		if err := dropUncommitted(tx); err != nil {
			return err
		}
		if rolledBack, restored, err = rollBackOpen(tx); err != nil {
			return err
		}
		return indexStates(tx)
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	if upgraded > 0 {
		caddy.Log().Named("ark.stores.bolt").Warn("store file upgraded to a new format: what changes is written in it from now on, which older versions of caddy-ark cannot read (to go back to one, dump the store with caddy ark store dump --version 1, which leaves the statistics out only when given --without-stats, and load that with the older version's store load)",
			zap.String("path", path), zap.Uint64("from", upgraded), zap.Uint64("to", formatCurrent))
	}
	if len(rolledBack) > 0 {
		caddy.Log().Named("ark.stores.bolt").Warn("store file: batches (retargets, undos) that a process stopped before they answered were rolled back: they changed nothing",
			zap.String("path", path), zap.Uint64s("batches", rolledBack), zap.Int("bindings_restored", restored))
	}
	b := &boltDB{
		db:       db,
		watchers: map[*boltWatcher]struct{}{},
		staging:  map[*importRun]struct{}{},
		kick:     make(chan struct{}, 1),
		merged:   make(chan struct{}),
		logger:   caddy.Log().Named("ark.stores.bolt"),
		path:     path,
	}
	b.dev, b.ino = osfile.ID(fi)
	b.quiet = time.AfterFunc(time.Hour, b.releaseWritten)
	b.quiet.Stop()
	b.closing, b.close = context.WithCancel(context.Background())
	go b.mergeLoop()
	b.kickMerger() // an import committed before the process stopped
	return b, nil
}

// errCheckTimeout stops a check that has run too long.
var errCheckTimeout = errors.New("the check took too long")

// checkFile checks the open file db and closes it if it is damaged or the
// check takes longer than timeout. It first reads every page of every
// bucket in this goroutine, with faults made panics and recovered, so that
// a page number pointing past the file fails the check rather than the
// process; then it runs bbolt's own consistency check (tx.Check: page
// types, ordering, the freelist, unreachable pages). A damaged file opened
// anyway panics in later reads and can fault fatally in bbolt's remap
// when it grows.
func checkFile(db *bolt.DB, timeout time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- db.View(func(tx *bolt.Tx) error { return checkTx(tx, time.Now().Add(timeout)) }) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		err = errCheckTimeout
		go func() { <-done; db.Close() }() // the check cannot be stopped; it releases the file when it ends
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errCheckTimeout):
		return fmt.Errorf("the consistency check of the file did not end within %v: check it offline (bbolt check) and set skip_check for a file this large", timeout)
	}
	db.Close()
	return fmt.Errorf("the file is damaged (bbolt's consistency check failed: %w): it was refused rather than served from; restore it from a backup, or repair a copy offline (bbolt check, bbolt compact)", err)
}

// readBindings reads and decodes every binding of the open file db (those
// of imports committed and not yet merged too), as a pass over the store
// (Each) does, and checks that their keys come in order: what a file
// opened without its check (skip_check) is read for, once, so that a
// damaged page is refused at open rather than answered from, as a lookup
// that a damaged page misdirects answers without a fault (404, or a
// garbled target). As in checkTx, faults are made panics and recovered.
func readBindings(db *bolt.DB) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bbolt panicked: %v", r)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return db.View(func(tx *bolt.Tx) error {
		bv := openView(tx)
		if bv.bindings == nil {
			return nil // a file no store has written to
		}
		for i, bk := range append([]*bolt.Bucket{bv.bindings}, bv.merging...) {
			var last []byte
			c := bk.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if last != nil && bytes.Compare(last, k) >= 0 {
					return fmt.Errorf("its keys are out of order at %q", k)
				}
				last = k
				if i > 0 {
					if len(v) < 8 {
						return fmt.Errorf("the import record of %q is cut short", k)
					}
					v = v[8:] // a staged record's input index
				}
				if _, err := decodeBinding(string(k), v); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// checkTx is checkFile's transaction: it returns the first problems found.
func checkTx(tx *bolt.Tx, deadline time.Time) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("reading it failed: %v", r)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	n := 0
	err = tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
		b.Stats() // reads every page of the bucket
		return b.ForEach(func(_, _ []byte) error {
			if n++; n%4096 == 0 && time.Now().After(deadline) {
				return errCheckTimeout
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	var errs []error
	for e := range tx.Check() {
		if len(errs) < 3 {
			errs = append(errs, e)
		}
	}
	return errors.Join(errs...)
}

// call runs fn, a transaction of b, turning a panic inside bbolt (a read
// of a file damaged since it was opened) into ErrUnavailable and marking
// b damaged: from then on every call fails at once, since a damaged file
// may hold the keys it fails to find. A memory fault, such as a damaged
// page number that points outside the mapped file, is made a panic too
// (debug.SetPanicOnFault), instead of a fatal error that ends the
// process. A write first checks that the path still names the file (see
// present).
func (b *boltDB) call(write bool, fn func() error) (err error) {
	if b.damaged.Load() {
		return fmt.Errorf("%w: the store file %s was found damaged: restore it and restart Caddy", store.ErrUnavailable, b.path)
	}
	if write {
		if err := b.present(); err != nil {
			return err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			if b.damaged.CompareAndSwap(false, true) {
				caddy.Log().Named("ark.stores.bolt").Error("store file damaged: every call fails (503) until it is restored and Caddy restarted",
					zap.String("path", b.path), zap.Any("panic", r))
			}
			err = fmt.Errorf("%w: the store file %s is damaged: %v", store.ErrUnavailable, b.path, r)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return fn()
}

// present returns ErrUnavailable when the store's path no longer names the
// file it has open: deleted or replaced while open, the file takes every
// write with it, and the next start would make a new, empty store.
func (b *boltDB) present() error {
	if b.ino == 0 {
		return nil // a system that does not say
	}
	fi, err := os.Stat(b.path)
	if err == nil {
		if dev, ino := osfile.ID(fi); dev == b.dev && ino == b.ino {
			return nil
		}
	}
	if b.gone.CompareAndSwap(false, true) {
		caddy.Log().Named("ark.stores.bolt").Error("store file deleted or replaced while open: writes are refused (503); restore the file and restart Caddy",
			zap.String("path", b.path), zap.NamedError("stat", err))
	}
	return fmt.Errorf("%w: the store file %s was deleted or replaced while Caddy had it open: writes would be lost with it; restore the file and restart Caddy", store.ErrUnavailable, b.path)
}

// Check implements store.Checker: the file is not damaged, and its path
// still names it (a write would not be lost with an unlinked file).
func (b *boltDB) Check(context.Context) error {
	return b.call(true, func() error { return nil })
}

// view runs a read transaction through call.
func (b *boltDB) view(fn func(*bolt.Tx) error) error {
	return b.call(false, func() error { return b.db.View(fn) })
}

// batch runs a write through bbolt's Batch and call. A panic or memory
// fault inside fn, in the goroutine that runs the batch, makes bbolt run
// fn again alone in this goroutine, where it panics again for call to
// recover. A panic in the batch's commit happens in bbolt's goroutine,
// where nothing can recover it: the check at open is the defence.
func (b *boltDB) batch(fn func(*bolt.Tx) error) error {
	return b.call(true, func() error {
		return b.db.Batch(func(tx *bolt.Tx) error {
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			return fn(tx)
		})
	})
}

// update runs a write transaction through call.
func (b *boltDB) update(fn func(*bolt.Tx) error) error {
	return b.call(true, func() error { return b.db.Update(fn) })
}

// ReadOnly is a store file opened for reading only (OpenReadOnly): it
// looks up, lists and dumps as the store does, and every write fails, as
// does Get of a key that a committed import holds but the merger has not
// moved yet (Get moves it first, so that it has its history).
type ReadOnly interface {
	store.Store
	store.Dumper
}

// OpenReadOnly opens the store file at path for reading only, without
// Caddy, for tools such as `caddy ark check --store` and `caddy ark store
// dump`: it creates and changes nothing, and a file of an older format
// stays of that format. bbolt lets readers share a file but not with a
// writer: while a Caddy has the file open it waits, at most a few
// seconds, and fails with an error that wraps bbolt's ErrTimeout. close
// releases the file.
func OpenReadOnly(path string) (s ReadOnly, close func() error, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: boltOpenTimeout, ReadOnly: true})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, nil, fmt.Errorf("%s: a running Caddy holds the file (waited %v): %w", path, boltOpenTimeout, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketBindings) == nil {
			return errors.New("not a store file: it has no bindings")
		}
		_, err := fileFormat(tx)
		return err
	}); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return &boltDB{db: db, watchers: map[*boltWatcher]struct{}{}}, db.Close, nil
}

// Destruct closes the file once no config uses it. An import still
// staging stops and is dropped; the merger stops between two of its
// transactions and goes on when the file is opened again.
func (b *boltDB) Destruct() error {
	b.close()
	b.quiet.Stop()
	<-b.merged
	return b.db.Close()
}

// view is what a transaction sees of the bindings: the bindings bucket
// and the staged buckets of committed imports that the merger has not
// emptied yet. A key is in one of them at most.
type view struct {
	bindings *bolt.Bucket
	merging  []*bolt.Bucket
}

func openView(tx *bolt.Tx) view {
	v := view{bindings: tx.Bucket(bucketBindings)}
	staged, marks := tx.Bucket(bucketStaged), tx.Bucket(bucketImports)
	if marks == nil {
		return v // a file opened read-only that no import of this version has written
	}
	c := marks.Cursor()
	for id, _ := c.First(); id != nil; id, _ = c.Next() {
		if bk := staged.Bucket(id); bk != nil {
			v.merging = append(v.merging, bk)
		}
	}
	return v
}

// get returns the binding of key as stored, nil for none, and the staged
// bucket that holds it, nil when it is in the bindings bucket.
func (v view) get(key []byte) ([]byte, *bolt.Bucket) {
	if val := v.bindings.Get(key); val != nil {
		return val, nil
	}
	for _, bk := range v.merging {
		if rec := bk.Get(key); rec != nil {
			return rec[8:], bk
		}
	}
	return nil, nil
}

// current returns the binding of key to change in tx, nil for none,
// first moving it into the bindings bucket when it is staged.
func (v view) current(tx *bolt.Tx, key string) (*store.Binding, error) {
	val, staged := v.get([]byte(key))
	if staged != nil {
		if err := promote(tx, staged, []byte(key), val); err != nil {
			return nil, err
		}
	}
	if val == nil {
		return nil, nil
	}
	return decodeBinding(key, val)
}

// firstAfter moves c to the first key after after, or to the first key
// when after is nil, and returns that key and its value (nil at the end).
func firstAfter(c *bolt.Cursor, after []byte) ([]byte, []byte) {
	if after == nil {
		return c.First()
	}
	k, v := c.Seek(after)
	if bytes.Equal(k, after) {
		return c.Next()
	}
	return k, v
}

// Lookup implements Store.
func (b *boltDB) Lookup(_ context.Context, keys []string) ([]*store.Binding, error) {
	out := make([]*store.Binding, len(keys))
	err := b.view(func(tx *bolt.Tx) error {
		bv := openView(tx)
		for i, k := range keys {
			if v, _ := bv.get([]byte(k)); v != nil {
				var err error
				if out[i], err = decodeBinding(k, v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return out, err
}

// Get implements Store. A binding that an import has committed but the
// merger has not moved yet is moved first, so that it has its history.
func (b *boltDB) Get(_ context.Context, key string) (*store.Binding, []store.Change, error) {
	var cur *store.Binding
	var hist []store.Change
	var staged bool
	err := b.view(func(tx *bolt.Tx) error {
		_, bk := openView(tx).get([]byte(key))
		staged = bk != nil
		return nil
	})
	if err == nil && staged {
		err = b.update(func(tx *bolt.Tx) error {
			if v, bk := openView(tx).get([]byte(key)); bk != nil {
				return promote(tx, bk, []byte(key), v)
			}
			return nil
		})
	}
	if err != nil {
		return nil, nil, err
	}
	err = b.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketBindings).Get([]byte(key))
		if v == nil {
			return store.ErrNotFound
		}
		var err error
		if cur, err = decodeBinding(key, v); err != nil {
			return err
		}
		prefix := append([]byte(key), 0)
		c := tx.Bucket(bucketKeyHist).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			ch, err := readChange(tx, k[len(prefix):])
			if err != nil {
				return err
			}
			hist = append(hist, *ch)
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
	err := b.batch(func(tx *bolt.Tx) error {
		cur, err := openView(tx).current(tx, w.Binding.Key)
		if err != nil {
			return err
		}
		switch {
		case cur != nil && cur.State() == store.StateWithdrawn:
			return store.ErrWithdrawn
		case w.Create && cur != nil, w.IfVersion > 0 && (cur == nil || cur.Version != w.IfVersion):
			return store.ErrPrecondition
		}
		if stored, err = putBinding(tx, cur, w.Binding, w.By); err == nil {
			b.touch(w.Binding.Key)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	b.notify([]string{w.Binding.Key})
	b.wrote(1)
	return stored, nil
}

// Reserve implements Store.
func (b *boltDB) Reserve(_ context.Context, bs []store.Binding, by string) ([]bool, error) {
	var stored []bool
	err := b.batch(func(tx *bolt.Tx) error {
		stored = make([]bool, len(bs)) // Batch may run this more than once
		bv := openView(tx)
		for i := range bs {
			if v, _ := bv.get([]byte(bs[i].Key)); v != nil {
				continue
			}
			if _, err := putBinding(tx, nil, bs[i], by); err != nil {
				return err
			}
			b.touch(bs[i].Key)
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
		b.wrote(len(keys))
	}
	return stored, nil
}

// Count implements Store. Reading a counter (n = 0) writes nothing.
func (b *boltDB) Count(_ context.Context, name string, n uint64) (uint64, error) {
	var before uint64
	if n == 0 {
		err := b.view(func(tx *bolt.Tx) error {
			if v := tx.Bucket(bucketCounters).Get([]byte(name)); len(v) == 8 {
				before = be.BigEndian.Uint64(v)
			}
			return nil
		})
		return before, err
	}
	err := b.batch(func(tx *bolt.Tx) error {
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
	return eachPage(ctx, b.batchAfter, fn)
}

// eachPage calls fn with each value of the pages that page returns, in
// order, until fn returns an error, which it then returns, or a page
// ends the values. page returns the values after the key after (from the
// first when it is nil) and the last key it read when more may follow,
// nil at the end.
func eachPage[T any](ctx context.Context, page func(after []byte) ([]T, []byte, error), fn func(T) error) error {
	var after []byte // the last key of the page before
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		values, last, err := page(after)
		if err != nil {
			return err
		}
		for _, v := range values {
			if err := fn(v); err != nil {
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
	err = b.view(func(tx *bolt.Tx) error {
		bv := openView(tx)
		// Up to a batch and one from each bucket, merged in key order:
		// fewer than a batch in all means every bucket is at its end.
		var kvs [][2][]byte
		for i, bk := range append([]*bolt.Bucket{bv.bindings}, bv.merging...) {
			c := bk.Cursor()
			k, v := firstAfter(c, after)
			for n := 0; k != nil && n <= store.EachBatchCount; k, v = c.Next() {
				if i > 0 {
					v = v[8:] // a staged record's input index
				}
				kvs = append(kvs, [2][]byte{k, v})
				n++
			}
		}
		if len(bv.merging) > 0 {
			slices.SortFunc(kvs, func(a, b [2][]byte) int { return bytes.Compare(a[0], b[0]) })
		}
		size := 0
		for i, kv := range kvs {
			if i == store.EachBatchCount || size >= store.EachBatchBytes {
				last = bytes.Clone(kvs[i-1][0]) // keys are the transaction's, valid only inside it
				return nil
			}
			bd, err := decodeBinding(string(kv[0]), kv[1])
			if err != nil {
				return err
			}
			batch, size = append(batch, bd), size+len(kv[1])
		}
		return nil
	})
	return batch, last, err
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
	nb.Version, nb.Updated, nb.By = 1, time.Now().UTC().Truncate(time.Microsecond), by // as PostgreSQL keeps times: a dump moves between the two unchanged
	if cur != nil {
		nb.Version = cur.Version + 1
	}
	return &nb, record(tx, cur, &nb)
}

// record stores nb as the binding of its key, replacing cur (nil for a
// new key), and adds its history record.
func record(tx *bolt.Tx, cur, nb *store.Binding) error {
	if err := tx.Bucket(bucketBindings).Put([]byte(nb.Key), encodeBinding(nb)); err != nil {
		return err
	}
	if err := indexState(tx, cur, nb); err != nil {
		return err
	}
	records := tx.Bucket(bucketHistory)
	records.FillPercent = appendFill
	seq, err := records.NextSequence()
	if err != nil {
		return err
	}
	seqKey := be.BigEndian.AppendUint64(nil, seq)
	if err := records.Put(seqKey, encodeChange(&store.Change{Seq: seq, Time: nb.Updated, Key: nb.Key, By: nb.By, Old: cur, New: nb})); err != nil {
		return err
	}
	return tx.Bucket(bucketKeyHist).Put(append([]byte(nb.Key), append([]byte{0}, seqKey...)...), nil)
}

// How full bbolt fills the pages of a bucket when it splits them (its
// default is half): full where keys are only ever appended (the history,
// the staging buckets of an import), nearly full where a sorted batch is
// written (an import merged, a dump loaded), leaving room for a binding
// that changes later to grow in place.
const (
	appendFill = 1.0
	sortedFill = 0.9
)

// keyFormat is the key of the file's format in bucketFile.
var keyFormat = []byte("format")

// fileFormat returns the format of the file that tx reads: 1 for a file
// without one (or a new file), an error for one newer than formatCurrent.
func fileFormat(tx *bolt.Tx) (uint64, error) {
	bk := tx.Bucket(bucketFile)
	if bk == nil {
		return 1, nil
	}
	v := bk.Get(keyFormat)
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: the file's format (%x)", errDamaged, v)
	}
	f := be.BigEndian.Uint64(v)
	if f > formatCurrent {
		return 0, fmt.Errorf("the file is of format %d, written by a newer version of caddy-ark; this one reads formats up to %d: run the newer version, or move the store with its store dump and this version's store load", f, formatCurrent)
	}
	return f, nil
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
	_ store.Checker         = (*Store)(nil)
)
