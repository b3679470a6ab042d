package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/breaker"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
)

// pgPool is one of a backend's connection pools, with whether its server
// answers and its circuit breaker. A backend has one, or two when reads
// go to a standby of their own (the store's read DSN): then the reads go
// on while the primary is away, and the writes while the standby is.
type pgPool struct {
	*pgxpool.Pool
	b    *Backend
	role poolRole

	// Whether the server answered the last operation: 1 yes, 0 no, -1 not
	// known yet. Changes are logged and shown as caddy_ark_postgres_up
	// (caddy_ark_postgres_reads_up for the reads' pool).
	up atomic.Int32

	// The circuit breaker: once the server has failed pgTripAfter
	// operations in a row, operations fail at once with ErrUnavailable
	// rather than each waiting for the timeout, and one probes every
	// pgCooldown. Shown as caddy_ark_postgres_circuit
	// (caddy_ark_postgres_reads_circuit).
	circuit     *breaker.Breaker
	circuitOpen bool // since it last closed; under the circuit's lock
}

// poolRole says which of a backend's pools a pgPool is.
type poolRole string

const (
	poolWrites poolRole = "writes" // the primary's, and every read's without a read DSN
	poolReads  poolRole = "reads"  // the read DSN's
)

// newPGPool opens the pool of role on dsn.
func newPGPool(b *Backend, dsn string, role poolRole, maxConns int32) (*pgPool, error) {
	option := "dsn"
	if role == poolReads {
		option = "read_dsn"
	}
	cfg, err := pgPoolConfig(dsn, option, maxConns, b.timeout)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("store postgres: %v", err)
	}
	p := &pgPool{Pool: pool, b: b, role: role}
	p.up.Store(-1)
	p.circuit = breaker.New(pgTripAfter, pgCooldown, b.timeout+time.Second, p.circuitChanged)
	p.circuitGauge().Set(float64(breaker.Closed))
	return p, nil
}

// upGauge and circuitGauge are the pool's metrics.
func (p *pgPool) upGauge() prometheus.Gauge {
	if p.role == poolReads {
		return pgMetrics.readsUp.WithLabelValues(p.b.schema)
	}
	return pgMetrics.up.WithLabelValues(p.b.schema)
}

func (p *pgPool) circuitGauge() prometheus.Gauge {
	if p.role == poolReads {
		return pgMetrics.readsCircuit.WithLabelValues(p.b.schema)
	}
	return pgMetrics.circuit.WithLabelValues(p.b.schema)
}

// op starts an operation: it fails at once while the circuit is open,
// bounds ctx by the store's timeout and makes sure the schema is there.
// The caller must call cancel.
func (p *pgPool) op(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if err := p.allow(); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.b.timeout)
	if err := p.ready(ctx); err != nil {
		cancel()
		return nil, nil, err
	}
	return ctx, cancel, nil
}

// ready makes sure the schema is there: the primary's pool migrates it,
// the reads' pool checks that its server has it.
func (p *pgPool) ready(ctx context.Context) error {
	if p.role == poolReads {
		return p.b.readsReady(ctx)
	}
	return p.b.ready(ctx)
}

// allow returns ErrUnavailable, wrapping breaker.ErrOpen, when the circuit
// refuses an operation, and nil when it may go to the server.
func (p *pgPool) allow() error {
	if p.circuit.Allow() {
		return nil
	}
	pgMetrics.refused.WithLabelValues(p.b.schema).Inc()
	return fmt.Errorf("%w: %w", store.ErrUnavailable, breaker.ErrOpen)
}

// result turns the error of an operation on ctx into the store's: a
// server that is down, refuses connections or ran out of time makes
// ErrUnavailable; a caller that gave up gets its own context's error. It
// records whether the server answered, for the circuit too; a caller
// that gave up says nothing about the server.
func (p *pgPool) result(ctx context.Context, err error) error {
	switch {
	case err == nil:
		p.setUp(true, nil)
		return nil
	case errors.Is(err, store.ErrUnavailable), errors.Is(err, errSchema):
		return err
	case storeAnswer(err):
		p.setUp(true, nil)
		return err
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ctx.Err()
	case pgLockTimeout(err):
		p.setUp(true, nil) // the server answered: it is busy, not away
		return fmt.Errorf("%w: %w", store.ErrUnavailable, errStoreBusy)
	case pgReadOnly(err):
		// A standby answered a write: the primary is elsewhere, or
		// being promoted. Its connections are let go, so that the next
		// ones look for the primary again.
		p.Reset()
		p.setUp(false, err)
		pgMetrics.unavailable.WithLabelValues(p.b.schema).Inc()
		return fmt.Errorf("%w: the server is a standby: %v", store.ErrUnavailable, err)
	case pgNotReachable(err):
		p.setUp(false, err)
		pgMetrics.unavailable.WithLabelValues(p.b.schema).Inc()
		return fmt.Errorf("%w: %v", store.ErrUnavailable, err)
	}
	p.setUp(true, nil)
	return err
}

// setUp records whether the server answers, for the circuit too, and
// logs the changes.
func (p *pgPool) setUp(up bool, err error) {
	v := int32(0)
	if up {
		v = 1
		p.circuit.Success()
	} else {
		p.circuit.Failure()
	}
	if p.up.Swap(v) == v {
		return
	}
	p.upGauge().Set(float64(v))
	b := p.b
	if up {
		b.watch.reconnect()
		b.logger.Info("store postgres: available", zap.String("schema", b.schema), zap.String("pool", string(p.role)))
		return
	}
	what := "identifiers not in the cache get 503"
	if p.role == poolWrites && b.reads != p {
		what = "writes get 503; reads go on from the read_dsn's server"
	}
	b.logger.Error("store postgres: unavailable; "+what, zap.String("schema", b.schema), zap.String("pool", string(p.role)), zap.Error(err))
}

// circuitChanged shows the circuit's new state as its gauge, and logs
// when it opens and closes (not every probe).
func (p *pgPool) circuitChanged(s breaker.State) {
	p.circuitGauge().Set(float64(s))
	b := p.b
	switch s {
	case breaker.Open:
		if p.circuitOpen {
			return
		}
		p.circuitOpen = true
		b.logger.Error("store postgres: circuit open: the server stopped answering; operations fail at once with 503 until a probe gets an answer",
			zap.String("schema", b.schema), zap.String("pool", string(p.role)), zap.Int("failures", pgTripAfter), zap.Duration("probe_every", pgCooldown))
	case breaker.Closed:
		p.circuitOpen = false
		b.logger.Info("store postgres: circuit closed: the server answers again", zap.String("schema", b.schema), zap.String("pool", string(p.role)))
	}
}

// pgReadOnly reports whether err is a write refused because the server
// is read only: a standby.
func pgReadOnly(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "25006"
}
