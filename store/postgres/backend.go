package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/breaker"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// Backend is one PostgreSQL store: a connection pool, the schema, and
// the listener that learns of other nodes' changes. PostgresStore modules
// with the same settings share it through pgBackends.
type Backend struct {
	pool    *pgxpool.Pool
	schema  string
	timeout time.Duration
	logger  *zap.Logger

	migrateMu sync.Mutex
	migrated  atomic.Bool

	// Whether the server answered the last operation: 1 yes, 0 no, -1 not
	// known yet. Changes are logged and shown as caddy_ark_postgres_up.
	up atomic.Int32

	// The circuit breaker: once the server has failed pgTripAfter
	// operations in a row, operations fail at once with ErrUnavailable
	// rather than each waiting for the timeout, and one probes every
	// pgCooldown. Shown as caddy_ark_postgres_circuit.
	circuit     *breaker.Breaker
	circuitOpen bool // since it last closed; under the circuit's lock

	watch pgWatch

	// Done once Destruct begins: imports stop, so that closing the pool
	// does not wait for them.
	closing context.Context
	close   context.CancelFunc
}

// The circuit breaker's settings. A server that stops answering costs
// pgTripAfter timeouts before operations fail at once; once it answers
// again, the next probe (at most pgCooldown later, or the one under way)
// closes the circuit.
const (
	pgTripAfter = 3
	pgCooldown  = 250 * time.Millisecond
)

// Open opens the PostgreSQL store at dsn, under schema (default
// "ark"), for a tool that uses it without Caddy, such as `caddy ark import
// --postgres`: a small pool, the default timeout, no log. The schema is
// created or migrated as a node would. The caller closes it with Destruct.
func Open(dsn, schema string) (*Backend, error) {
	if schema == "" {
		schema = DefaultSchema
	}
	if !validSchemaName(schema) {
		return nil, fmt.Errorf("--schema %q: lowercase letters, digits and _ only", schema)
	}
	return newPGBackend(dsn, schema, 2, defaultPGTimeout, zap.NewNop())
}

// newPGBackend opens a pool on dsn and migrates the schema. A server that
// cannot be reached yet is no error: operations fail with ErrUnavailable
// and migrate once it answers. A schema the server refuses to create or
// migrate is one.
func newPGBackend(dsn, schema string, maxConns int32, timeout time.Duration, logger *zap.Logger) (*Backend, error) {
	cfg, err := pgPoolConfig(dsn, maxConns, timeout)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("store postgres: %v", err)
	}
	b := &Backend{pool: pool, schema: schema, timeout: timeout, logger: logger}
	b.closing, b.close = context.WithCancel(context.Background())
	b.up.Store(-1)
	b.circuit = breaker.New(pgTripAfter, pgCooldown, timeout+time.Second, b.circuitChanged)
	pgMetrics.circuit.WithLabelValues(schema).Set(float64(breaker.Closed))
	ctx, cancel := context.WithTimeout(context.Background(), timeout+5*time.Second)
	defer cancel()
	if err := b.ready(ctx); err != nil && !errors.Is(err, store.ErrUnavailable) {
		pool.Close()
		return nil, err
	}
	b.watch.start(b)
	return b, nil
}

// Destruct implements caddy.Destructor: it stops the listener and closes
// the connections once no config uses the store.
func (b *Backend) Destruct() error {
	b.close()
	b.watch.stop()
	b.pool.Close()
	return nil
}

// ready migrates the schema unless that was done.
func (b *Backend) ready(ctx context.Context) error {
	if b.migrated.Load() {
		return nil
	}
	b.migrateMu.Lock()
	defer b.migrateMu.Unlock()
	if b.migrated.Load() {
		return nil
	}
	err := b.migrate(ctx)
	if err == nil {
		b.migrated.Store(true)
		b.logger.Info("store postgres: ready", zap.String("schema", b.schema), zap.Int("schema_version", len(pgMigrations)))
	}
	if errors.Is(err, errSchema) {
		return err
	}
	return b.result(ctx, err)
}

// op starts an operation: it fails at once while the circuit is open,
// bounds ctx by the store's timeout and makes sure the schema is there.
// The caller must call cancel.
func (b *Backend) op(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if err := b.allow(); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	if err := b.ready(ctx); err != nil {
		cancel()
		return nil, nil, err
	}
	return ctx, cancel, nil
}

// allow returns ErrUnavailable, wrapping breaker.ErrOpen, when the circuit
// refuses an operation, and nil when it may go to the server.
func (b *Backend) allow() error {
	if b.circuit.Allow() {
		return nil
	}
	pgMetrics.refused.WithLabelValues(b.schema).Inc()
	return fmt.Errorf("%w: %w", store.ErrUnavailable, breaker.ErrOpen)
}

// result turns the error of an operation on ctx into the store's: a
// server that is down, refuses connections or ran out of time makes
// ErrUnavailable; a caller that gave up gets its own context's error. It
// records whether the server answered, for the circuit too; a caller
// that gave up says nothing about the server.
func (b *Backend) result(ctx context.Context, err error) error {
	switch {
	case err == nil:
		b.setUp(true, nil)
		return nil
	case errors.Is(err, store.ErrUnavailable), errors.Is(err, errSchema):
		return err
	case storeAnswer(err):
		b.setUp(true, nil)
		return err
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ctx.Err()
	case pgLockTimeout(err):
		b.setUp(true, nil) // the server answered: it is busy, not away
		return fmt.Errorf("%w: %w", store.ErrUnavailable, errStoreBusy)
	case pgNotReachable(err):
		b.setUp(false, err)
		pgMetrics.unavailable.WithLabelValues(b.schema).Inc()
		return fmt.Errorf("%w: %v", store.ErrUnavailable, err)
	}
	b.setUp(true, nil)
	return err
}

// errStoreBusy says why a write waited in vain: another writer, an import
// most likely, holds the bindings for longer than the store's timeout.
var errStoreBusy = errors.New("waited longer than the timeout for another writer (an import?) to finish")

// pgLockTimeout reports whether err is lock_timeout's: the statement
// waited too long for a lock.
func pgLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}

// storeAnswer tells the store's own answers, and the errors of an Import's
// input, from the errors of talking to the server.
func storeAnswer(err error) bool {
	for _, e := range []error{store.ErrNotFound, store.ErrPrecondition, store.ErrWithdrawn, store.ErrConflict} {
		if errors.Is(err, e) {
			return true
		}
	}
	var input *importInputError
	return errors.As(err, &input)
}

// setUp records whether the server answers, for the circuit too, and
// logs the changes.
func (b *Backend) setUp(up bool, err error) {
	v := int32(0)
	if up {
		v = 1
		b.circuit.Success()
	} else {
		b.circuit.Failure()
	}
	if b.up.Swap(v) == v {
		return
	}
	pgMetrics.up.WithLabelValues(b.schema).Set(float64(v))
	if up {
		b.watch.reconnect()
		b.logger.Info("store postgres: available", zap.String("schema", b.schema))
	} else {
		b.logger.Error("store postgres: unavailable; identifiers not in the cache get 503", zap.String("schema", b.schema), zap.Error(err))
	}
}

// circuitChanged shows the circuit's new state as
// caddy_ark_postgres_circuit, and logs when it opens and closes (not
// every probe).
func (b *Backend) circuitChanged(s breaker.State) {
	pgMetrics.circuit.WithLabelValues(b.schema).Set(float64(s))
	switch s {
	case breaker.Open:
		if b.circuitOpen {
			return
		}
		b.circuitOpen = true
		b.logger.Error("store postgres: circuit open: the server stopped answering; operations fail at once with 503 until a probe gets an answer",
			zap.String("schema", b.schema), zap.Int("failures", pgTripAfter), zap.Duration("probe_every", pgCooldown))
	case breaker.Closed:
		b.circuitOpen = false
		b.logger.Info("store postgres: circuit closed: the server answers again", zap.String("schema", b.schema))
	}
}
