package localcopy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"go.uber.org/zap"
)

// Copy is a node's copy of a store's bindings, kept in a directory (see
// the package's documentation). Its methods are safe for concurrent use.
type Copy struct {
	dir    string
	src    store.Store // the store followed
	logger *zap.Logger

	applyMu sync.Mutex // held while records are written and applied, one writer at a time
	mu      sync.RWMutex
	base    *base            // nil until built
	over    map[string]entry // what the journal changed, by key
	seq     uint64           // the last history record applied
	j       *journal

	serving   atomic.Bool  // lookups read the copy (else the store)
	unapplied atomic.Bool  // a write of this node returned before the copy had a journal to apply it to
	building  atomic.Bool  // a base is being built
	currentAt atomic.Int64 // Unix nanoseconds: the copy held every change committed before then
	behind    atomic.Uint64
	lastErr   atomic.Pointer[string]

	watchMu  sync.Mutex
	watchers map[*func([]string)]struct{}

	// Closed, and made nil, once the copy has read the history to its
	// end, or failed to, after the store's Watch lapsed; nil when no
	// lapse is pending. Lookups wait for it, at most lapseWait.
	unsure    atomic.Pointer[chan struct{}]
	lapseWait time.Duration

	wake     chan struct{}
	opened   chan struct{} // closed when the first read of the history after Open ended, or the copy closed
	caught   chan struct{} // closed and replaced at the end of every catch-up
	caughtMu sync.Mutex
	stop     context.CancelFunc
	done     chan struct{}
}

// entry is what the journal says of a key: its binding (nil: none) and the
// batch that made it.
type entry struct {
	b     *store.Binding
	batch uint64
}

// Options tune a Copy.
type Options struct {
	// Poll is how often the history is read when nothing wakes the copy
	// earlier; 0 is DefaultPoll.
	Poll time.Duration
	// CompactAfter is how many journal records are folded into a new
	// base; 0 is DefaultCompactAfter.
	CompactAfter int
	// RestoreCheck is how often the copy checks that the store's
	// history reaches as far as the copy's (a store restored from an
	// older backup does not); 0 is DefaultRestoreCheck.
	RestoreCheck time.Duration
	// LapseWait is how long a lookup waits, at most, when the store's
	// Watch has lost the connection that tells of other nodes' changes
	// (store.Lapsing; the PostgreSQL store's listener, when its server
	// dies): the copy reads the history at once from whichever server
	// answers, and lookups wait for that read, so that a change
	// committed before the loss and not yet heard of is not answered
	// as before it. Once the read ends, or has failed because no server
	// answers, lookups answer from the copy at once. 0 is
	// DefaultLapseWait; negative: lookups never wait.
	LapseWait time.Duration
	Logger    *zap.Logger
}

// Defaults of Options.
const (
	DefaultPoll         = time.Second
	DefaultCompactAfter = 100_000
	DefaultRestoreCheck = 30 * time.Second
	DefaultLapseWait    = 500 * time.Millisecond
)

// Open opens the copy kept in dir of the bindings of src, making dir if
// needed, and returns without reading it. In the background, the copy
// dir holds is checked whole and reads src's history from its sequence
// number, and serves once that read reaches the end or finds no server
// (see follow); when dir holds none, or one that is damaged, a copy is
// built from src.Each. Lookups go to src meanwhile, and wait for the
// copy when src does not answer (see Store.Lookup). Close stops it.
func Open(dir string, src store.Store, o Options) (*Copy, error) {
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.CompactAfter <= 0 {
		o.CompactAfter = DefaultCompactAfter
	}
	if o.RestoreCheck <= 0 {
		o.RestoreCheck = DefaultRestoreCheck
	}
	if o.LapseWait == 0 {
		o.LapseWait = DefaultLapseWait
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("local copy: %w", err)
	}
	c := &Copy{dir: dir, src: src, logger: o.Logger, over: map[string]entry{},
		watchers: map[*func([]string)]struct{}{}, lapseWait: o.LapseWait, wake: make(chan struct{}, 1), caught: make(chan struct{}),
		opened: make(chan struct{}), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	c.stop = cancel
	src.Watch(ctx, func([]string) { c.Wake() })
	if l, ok := src.(store.Lapsing); ok {
		l.WatchLapses(ctx, c.lapsed)
	}
	go func() {
		defer close(c.done)
		c.follow(ctx, o)
	}()
	return c, nil
}

// openFromDisk installs the base in the copy's directory and its
// journal, the base checked whole first, and reports whether it did. It
// leaves the copy without a base, to be built, when there is none, when
// it is damaged or of an earlier format (which it logs), or when ctx is
// done first. The copy does not serve yet: what it holds may be older
// than what the store answered meanwhile (see follow).
func (c *Copy) openFromDisk(ctx context.Context) bool {
	b, err := openBase(ctx, c.dir)
	if err == nil {
		c.applyMu.Lock()
		err = c.install(b)
		c.applyMu.Unlock()
	}
	switch {
	case err == nil:
		c.currentAt.Store(lastWritten(c.dir).UnixNano())
		return true
	case errors.Is(err, errNoBase) || ctx.Err() != nil:
	default:
		c.logger.Warn("local copy: the copy on disk cannot be used: it is built again", zap.String("dir", c.dir), zap.Error(err))
	}
	return false
}

// awaitOpened waits until the first read of the history after Open
// ended (see follow), and reports whether it did before ctx was done.
func (c *Copy) awaitOpened(ctx context.Context) bool {
	select {
	case <-c.opened:
		return true
	case <-ctx.Done():
		return false
	}
}

// install makes b the copy's base with its journal's records applied.
func (c *Copy) install(b *base) error {
	j, recs, err := openJournal(c.dir, b.id)
	if err != nil {
		b.close()
		return fmt.Errorf("local copy: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.base
	c.base, c.over, c.seq, c.j = b, map[string]entry{}, b.seq, j
	for _, r := range recs {
		c.applyOne(r)
	}
	old.close()
	return nil
}

// errNotBuilt is the error of a copy that has no base yet.
var errNotBuilt = errors.New("local copy: not built yet")

// built reports whether the copy has a base and a journal.
func (c *Copy) built() bool {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	return c.j != nil
}

// Close stops following the store and closes the files.
func (c *Copy) Close() error {
	c.stop()
	<-c.done
	c.settle(c.unsure.Load())
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.serving.Store(false)
	c.base.close()
	c.base = nil
	if c.j != nil {
		return c.j.close()
	}
	return nil
}

// Serving reports whether lookups read the copy: it was built, or opened
// from disk, and caught up once (or, opened from disk, found no server
// to catch up from), and its journal takes writes.
func (c *Copy) Serving() bool { return c.serving.Load() }

// Lookup returns the bindings of keys as the copy has them, nil where it
// has none, as store.Store's Lookup does.
func (c *Copy) Lookup(keys []string) ([]*store.Binding, error) {
	if err := c.reading(); err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	out := make([]*store.Binding, len(keys))
	for i, k := range keys {
		b, err := c.current(k)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// LookupOne is Lookup of one key, whose binding it returns by value,
// with found false when the copy has none: the resolver's lookup of an
// identifier makes no binding on the heap.
func (c *Copy) LookupOne(key string) (b store.Binding, found bool, err error) {
	if err := c.reading(); err != nil {
		return b, false, err
	}
	defer c.mu.RUnlock()
	if e, ok := c.over[key]; ok {
		if e.b == nil {
			return b, false, nil
		}
		return *e.b, true, nil
	}
	found, err = c.base.lookupInto(key, &b)
	return b, found, err
}

// reading waits for the read of the history that a lapse of the store's
// Watch called for (see lapsed), at most lapseWait, then read-locks the
// copy for a lookup; it returns errNotBuilt, and holds no lock, when the
// copy has no base yet.
func (c *Copy) reading() error {
	if p := c.unsure.Load(); p != nil {
		c.awaitSettled(p)
	}
	c.mu.RLock()
	if c.base == nil {
		c.mu.RUnlock()
		return errNotBuilt
	}
	return nil
}

// current returns key's binding as the copy has it; c.mu is held.
func (c *Copy) current(key string) (*store.Binding, error) {
	if e, ok := c.over[key]; ok {
		return e.b, nil
	}
	return c.base.lookup(key)
}

// applyOne applies r; c.mu is held. A binding older than the copy's (a
// smaller version) is not applied: the copy built while the store
// changed, or a write of this node applied before its history record,
// already has a newer one.
func (c *Copy) applyOne(r record) {
	if r.seq > c.seq {
		c.seq = r.seq
	}
	switch r.kind {
	case kindDelete:
		c.over[r.key] = entry{}
	case kindRestore:
		c.over[r.key] = entry{b: r.b}
	default:
		cur, err := c.current(r.key)
		if err == nil && cur != nil && r.b.Version < cur.Version {
			return
		}
		c.over[r.key] = entry{b: r.b, batch: r.batch}
	}
}

// apply writes recs to the journal, syncs it, applies them and tells
// the watchers of their keys.
func (c *Copy) apply(recs []record) error {
	if len(recs) == 0 {
		return nil
	}
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	if c.j == nil {
		return errNotBuilt
	}
	if err := c.j.append(recs); err != nil {
		return fmt.Errorf("local copy: writing the journal: %w", err)
	}
	keys := make([]string, len(recs))
	c.mu.Lock()
	for i, r := range recs {
		c.applyOne(r)
		keys[i] = r.key
	}
	c.mu.Unlock()
	c.tell(keys)
	return nil
}

// Seq returns the sequence number of the last history record applied.
func (c *Copy) Seq() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.seq
}

// Watch calls changed with the keys of what the copy applies, after it
// is applied, until ctx is done; nil when everything may have changed
// (a base swapped in).
func (c *Copy) Watch(ctx context.Context, changed func(keys []string)) {
	c.watchMu.Lock()
	c.watchers[&changed] = struct{}{}
	c.watchMu.Unlock()
	context.AfterFunc(ctx, func() {
		c.watchMu.Lock()
		delete(c.watchers, &changed)
		c.watchMu.Unlock()
	})
}

func (c *Copy) tell(keys []string) {
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	for fn := range c.watchers {
		(*fn)(keys)
	}
}

// Wake asks the copy to read the history now.
func (c *Copy) Wake() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}
