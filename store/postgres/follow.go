package postgres

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// pgServerState is what the listener reads of the server it follows.
type pgServerState struct {
	Standby   bool    // in recovery: a hot standby
	ReplayLag float64 // seconds behind the primary's last commit it received; 0 on the primary
	Receiving bool    // a standby's WAL receiver streams from a primary
}

// pgServerStateSQL selects a pgServerState's fields. A standby that
// replayed all it received lags 0, however long ago the primary last
// wrote; one that did not lags by the age of the last commit it
// replayed.
const pgServerStateSQL = `pg_is_in_recovery(),
		CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0
			ELSE coalesce(extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()), 0) END::float8,
		coalesce((SELECT status = 'streaming' FROM pg_stat_wal_receiver), false)`

// pgFollow is what the listener last saw of the server it follows the
// history from.
type pgFollow struct {
	mu        sync.Mutex
	following bool // whether a listener session runs now
	read      time.Time
	server    pgServerState
	seq       int64
}

// readAt notes a read of the history on server, which found it at seq.
func (f *pgFollow) readAt(schema string, server pgServerState, seq int64) {
	f.mu.Lock()
	f.following, f.read, f.server, f.seq = true, time.Now(), server, seq
	f.mu.Unlock()
	standby := 0.0
	if server.Standby {
		standby = 1
	}
	pgMetrics.standby.WithLabelValues(schema).Set(standby)
	pgMetrics.replayLag.WithLabelValues(schema).Set(server.ReplayLag)
	pgMetrics.historySeq.WithLabelValues(schema).Set(float64(seq))
}

// disconnected notes that the listener lost its server.
func (f *pgFollow) disconnected() {
	f.mu.Lock()
	f.following = false
	f.mu.Unlock()
}

// state returns the server's state as last read.
func (f *pgFollow) state() pgServerState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.server
}

// Replication implements store.Replicated: what the node knows of its
// servers now.
func (b *Backend) Replication() store.Replication {
	f := &b.follow
	f.mu.Lock()
	defer f.mu.Unlock()
	r := store.Replication{
		Writes:     b.pool.up.Load() == 1,
		Reads:      b.reads.up.Load() == 1,
		Following:  f.following,
		HistorySeq: uint64(max(f.seq, 0)),
	}
	if !f.read.IsZero() {
		r.Server = "primary"
		if f.server.Standby {
			r.Server = "standby"
			r.ReplayLag = millis(f.server.ReplayLag)
			r.Streaming = f.server.Receiving
		}
		r.ReadAgo = millis(time.Since(f.read).Seconds())
	}
	return r
}

// millis rounds seconds to the millisecond.
func millis(seconds float64) float64 { return math.Round(seconds*1000) / 1000 }

// Replication implements store.Replicated.
func (s *Store) Replication() store.Replication {
	return s.backend.(*Backend).Replication()
}

// Interface guards.
var (
	_ store.Replicated = (*Store)(nil)
	_ store.Replicated = (*Backend)(nil)
	_ store.Checker    = (*Store)(nil)
)

// Check implements store.Checker for the readiness check: nil when the
// reads' server answers, the node then resolves. With a read DSN it asks
// the primary's too, whose answer Replication then shows, but a primary
// that does not answer leaves the node ready: it resolves from the
// standby, and its writes get 503.
func (b *Backend) Check(ctx context.Context) error {
	if b.reads != b.pool {
		_ = b.ping(ctx, b.pool)
	}
	return b.ping(ctx, b.reads)
}

// ping asks p's server for nothing.
func (b *Backend) ping(ctx context.Context, p *pgPool) error {
	octx, cancel, err := p.op(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	_, err = p.Exec(octx, "SELECT 1")
	return p.result(octx, err)
}

// Check implements store.Checker.
func (s *Store) Check(ctx context.Context) error { return s.backend.(*Backend).Check(ctx) }
