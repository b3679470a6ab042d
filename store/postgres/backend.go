package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/zap"
)

// Backend is one PostgreSQL store: a connection pool, the schema, and
// the listener that learns of other nodes' changes. PostgresStore modules
// with the same settings share it through pgBackends.
type Backend struct {
	// The pool of the writes, and of every read without a read DSN: the
	// primary's.
	pool *pgPool
	// The pool of the reads that may be served by a standby (lookups,
	// Get, Each, Changes, List): pool itself unless the store has a read
	// DSN.
	reads *pgPool

	schema  string
	timeout time.Duration
	logger  *zap.Logger

	migrateMu sync.Mutex
	migrated  atomic.Bool
	// Whether the reads' server was seen to hold the schema at this
	// code's version, when it is not the primary's pool.
	readsMigrated atomic.Bool

	watch pgWatch

	// What the listener last saw of the server it follows.
	follow pgFollow

	// Done once Destruct begins: imports stop, so that closing the pool
	// does not wait for them.
	closing context.Context
	close   context.CancelFunc
}

// The circuit breakers' settings. A server that stops answering costs
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
	return newPGBackend(dsn, "", schema, 2, defaultPGTimeout, zap.NewNop())
}

// newPGBackend opens a pool on dsn, and one on readDSN unless it is "",
// and migrates the schema. A server that cannot be reached yet is no
// error: operations fail with ErrUnavailable and migrate once it answers.
// A schema the server refuses to create or migrate is one.
func newPGBackend(dsn, readDSN, schema string, maxConns int32, timeout time.Duration, logger *zap.Logger) (*Backend, error) {
	b := &Backend{schema: schema, timeout: timeout, logger: logger}
	var err error
	if b.pool, err = newPGPool(b, dsn, poolWrites, maxConns); err != nil {
		return nil, err
	}
	b.reads = b.pool
	if readDSN != "" {
		if b.reads, err = newPGPool(b, readDSN, poolReads, maxConns); err != nil {
			b.pool.Close()
			return nil, err
		}
	}
	b.closing, b.close = context.WithCancel(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), timeout+5*time.Second)
	defer cancel()
	if err := b.ready(ctx); err != nil && !errors.Is(err, store.ErrUnavailable) {
		b.closePools()
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
	b.closePools()
	return nil
}

// closePools closes the pools.
func (b *Backend) closePools() {
	b.pool.Close()
	if b.reads != b.pool {
		b.reads.Close()
	}
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
	return b.pool.result(ctx, err)
}

// readsReady checks, once, that the reads' server holds the schema at
// this code's version: a standby cannot be migrated, and the primary's
// pool migrates it once the primary answers.
func (b *Backend) readsReady(ctx context.Context) error {
	if b.migrated.Load() || b.readsMigrated.Load() {
		return nil
	}
	var version int
	err := b.reads.QueryRow(ctx, pgSQL(b.schema, "SELECT version FROM @.schema_version")).Scan(&version)
	var pgErr *pgconn.PgError
	switch {
	case err == nil && version == len(pgMigrations):
		b.readsMigrated.Store(true)
		return b.reads.result(ctx, nil)
	case err == nil && version > len(pgMigrations):
		return newerSchema(b.schema, version)
	case err == nil, errors.Is(err, pgx.ErrNoRows), errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000"):
		b.reads.result(ctx, nil) // it answered
		return fmt.Errorf("%w: schema %s is not at version %d on the reads' server yet: a node connected to the primary migrates it", store.ErrUnavailable, b.schema, len(pgMigrations))
	}
	return b.reads.result(ctx, err)
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
