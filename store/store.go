package store

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// Store holds identifiers as live data: bindings made through the API,
// minter counters, and the history of every change. Table files are read
// first; a store answers for identifiers that no table file assigns.
//
// Each backend is a Caddy module in the ark.stores namespace, in a file of
// its own, and implements Store once provisioned. Keys are normalized
// identifiers (normalize.ARK.Key, normalize.URN.Key); backends never
// normalize, validate targets or check permissions: the handler and the API
// do that before calling them.
//
// A backend may be shared by several handlers and configs (caddy.UsagePool),
// and every method is safe for concurrent use.
//
// Listing, batches, the history across identifiers, dumps, statistics,
// target checks and API keys are part of the contract: both backends meet it, and
// nothing asks a store whether it can. Backing up as one file (Backuper)
// and sharing across configs (Shared) stay optional: the API and the
// handler each ask once.
type Store interface {
	Lister
	Batcher
	Historian
	Dumper
	StatsStore
	TargetChecks
	KeyStore

	// Lookup returns the bindings of keys, in the same order, nil where a
	// key has none. The resolver passes an identifier's key followed by
	// its ancestors' keys, nearest first, and takes the first non-nil one:
	// a backend answers them in one round trip.
	Lookup(ctx context.Context, keys []string) ([]*Binding, error)

	// Get returns the binding of key and its history, oldest first.
	// It returns ErrNotFound when key has never been minted or bound.
	Get(ctx context.Context, key string) (*Binding, []Change, error)

	// Apply makes one change atomically, with its history record, and
	// returns the binding as stored (new Version, Updated and By). It
	// refuses with ErrPrecondition when w's precondition does not hold,
	// and with ErrWithdrawn when the key is withdrawn: a withdrawn
	// identifier never changes again.
	Apply(ctx context.Context, w Write) (*Binding, error)

	// Reserve stores bs, new bindings for keys that have none, in one
	// transaction, and returns which were stored: false where a key was
	// already taken (minted, bound or withdrawn), which then is left as
	// it was. What Reserve returns is durable. Minting uses it for names
	// with or without a target (a reserved name has Status 0).
	Reserve(ctx context.Context, bs []Binding, by string) ([]bool, error)

	// Count adds n to the counter name and returns its value before the
	// addition, atomically and durably: two callers never get overlapping
	// ranges. Minters keep their sequences here.
	Count(ctx context.Context, name string, n uint64) (uint64, error)

	// Each calls fn with every binding, in key order, until fn returns an
	// error, which Each then returns.
	Each(ctx context.Context, fn func(*Binding) error) error

	// SizeHint returns about how many bindings the store holds, found
	// without decoding them, and ok; ok is false when the backend does
	// not answer or its answer cannot be read. It chooses between plans,
	// as a query planner's estimate does, and never decides what an
	// identifier is.
	SizeHint(ctx context.Context) (n int64, ok bool)

	// Import adds the bindings that next returns until it returns io.EOF,
	// as one batch, with history records naming by, and returns how many
	// it added. A key that is already bound the same way (same Target,
	// Status, Passthrough, Meta and Reason), in the store or earlier in
	// the batch, is skipped; one bound differently fails the import with
	// an *ImportError naming the input's position and wrapping
	// ErrConflict, and nothing of the batch is kept. An error from next
	// fails the import the same way, keeping nothing, and so does ctx
	// done before Import returns (ctx.Err()): a client that goes away, a
	// server that stops. Readers see all of the batch or none of it, and
	// writers are not kept waiting while next reads a slow input.
	Import(ctx context.Context, next func() (*Binding, error), by string) (int, error)

	// Watch calls changed with the keys of changes as the backend learns
	// of them, its own and those other nodes make, until ctx is done.
	// changed(nil) means the backend cannot say what changed (a missed
	// notification): everything cached from it must be forgotten. Watch
	// returns at once; a backend with nothing to watch calls changed only
	// for its own writes. For its own writes (Apply, Reserve for the keys
	// it stored, Import) changed is called before the write returns, so
	// that the next request sees the change.
	Watch(ctx context.Context, changed func(keys []string))
}

// Binding is an identifier as a store holds it: the fields of a table
// Entry, under its normalized key, with its state.
type Binding struct {
	// The normalized identifier.
	Key string `json:"id"`

	// As in Entry: a local path or an absolute http(s) URL; "" for a name
	// that is minted but not bound yet, or withdrawn without a target.
	Target string `json:"target,omitempty"`

	// As in Entry, already resolved to the answer (200, 302, 303, 307 or
	// 410); 0 for a name that is minted but not bound yet.
	Status int `json:"status,omitempty"`

	// Whether descendants resolve through this binding.
	Passthrough bool `json:"passthrough"`

	// Metadata served by ?info.
	Meta map[string]string `json:"meta,omitempty"`

	// Why the identifier was withdrawn (Status 410).
	Reason string `json:"reason,omitempty"`

	// Incremented by every change; 1 for a new binding. The API's ETag.
	Version uint64 `json:"version"`

	// When the binding last changed, and the name of the API key that
	// changed it.
	Updated time.Time `json:"updated"`
	By      string    `json:"by,omitempty"`
}

// Write is one change for Store.Apply: the binding Key is to have.
type Write struct {
	Binding Binding

	// The precondition: with IfVersion > 0 the current binding must have
	// that version (If-Match); with Create there must be no binding at all
	// (If-None-Match: *). With neither, the change is create-or-update.
	IfVersion uint64
	Create    bool

	// The name of the API key making the change, for the history.
	By string
}

// Change is one record of a key's history.
type Change struct {
	Seq  uint64    `json:"seq"` // the store's change sequence, increasing
	Time time.Time `json:"time"`
	Key  string    `json:"id"`
	By   string    `json:"by"`
	Old  *Binding  `json:"old"` // nil for a new binding
	New  *Binding  `json:"new"`

	// The batch the change was made in (see Batcher); 0 for none.
	Batch uint64 `json:"batch,omitempty"`
}

// ImportError is an import refused at one of its bindings.
type ImportError struct {
	Index int    // 0-based position in the input
	Key   string // the binding's key
	Err   error
}

func (e *ImportError) Error() string {
	return "binding " + strconv.Itoa(e.Index) + " (" + e.Key + "): " + e.Err.Error()
}

func (e *ImportError) Unwrap() error { return e.Err }

// The errors stores return; the API maps them to statuses.
var (
	ErrNotFound     = errors.New("not minted or bound")                             // 404
	ErrPrecondition = errors.New("the binding has changed since it was read")       // 412
	ErrWithdrawn    = errors.New("withdrawn: a withdrawn identifier never changes") // 409
	ErrConflict     = errors.New("already bound differently")                       // 409
	ErrUnavailable  = errors.New("the store is unavailable")                        // 503
)

// The most bindings, and about the most bytes of them, that a store's Each
// reads at a time, between its calls of fn: no transaction or connection
// is held while fn writes to a client.
const (
	EachBatchCount = 1000
	EachBatchBytes = 4 << 20
)
