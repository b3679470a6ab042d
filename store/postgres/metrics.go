package postgres

import (
	"errors"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// pgMetrics are the PostgreSQL stores' metrics, by schema. Like the
// handler's, they live here and every config registers the same
// collectors, so their values survive config reloads.
var pgMetrics = struct {
	up          *prometheus.GaugeVec
	unavailable *prometheus.CounterVec
	circuit     *prometheus.GaugeVec
	refused     *prometheus.CounterVec

	readsUp      *prometheus.GaugeVec
	readsCircuit *prometheus.GaugeVec
	standby      *prometheus.GaugeVec
	replayLag    *prometheus.GaugeVec
	historySeq   *prometheus.GaugeVec
}{
	up: pgGauge("postgres_up",
		"Whether the PostgreSQL store's server answered its last operation (1) or not (0), by schema."),
	unavailable: pgCounter("postgres_unavailable_total",
		"Operations of the PostgreSQL store that failed because its server was down, refused connections or did not answer in time, by schema."),
	circuit: pgGauge("postgres_circuit",
		"The state of the PostgreSQL store's circuit breaker, by schema: 0 closed (operations go to the server), 1 half-open (one probes), 2 open (operations fail at once)."),
	refused: pgCounter("postgres_circuit_refused_total",
		"Operations of the PostgreSQL store that failed at once, without asking the server, because the circuit was open, by schema."),
	readsUp: pgGauge("postgres_reads_up",
		"With a read_dsn: whether the server of the PostgreSQL store's reads answered its last operation (1) or not (0), by schema."),
	readsCircuit: pgGauge("postgres_reads_circuit",
		"With a read_dsn: the state of the circuit breaker of the PostgreSQL store's reads, by schema: 0 closed, 1 half-open, 2 open."),
	standby: pgGauge("postgres_standby",
		"Whether the server the node follows the PostgreSQL store's history from (the read_dsn's, else the dsn's) was a standby (1) or the primary (0) when last read, by schema."),
	replayLag: pgGauge("postgres_replay_lag_seconds",
		"How far behind the primary the standby the node follows was when last read, in seconds (0 on the primary, and on a standby that replayed all it received), by schema."),
	historySeq: pgGauge("postgres_history_seq",
		"The sequence number of the newest record of the PostgreSQL store's history that the node has read, by schema."),
}

// registerPGMetrics registers the PostgreSQL store's metrics on the
// registry of ctx's config, unless another store of the config did.
func registerPGMetrics(ctx caddy.Context) error {
	reg := ctx.GetMetricsRegistry()
	for _, c := range []prometheus.Collector{pgMetrics.up, pgMetrics.unavailable, pgMetrics.circuit, pgMetrics.refused,
		pgMetrics.readsUp, pgMetrics.readsCircuit, pgMetrics.standby, pgMetrics.replayLag, pgMetrics.historySeq} {
		if err := reg.Register(c); err != nil && !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
			return err
		}
	}
	return nil
}

// pgGauge is a gauge of the PostgreSQL store, caddy_ark_<name>, by schema.
func pgGauge(name, help string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "caddy", Subsystem: "ark", Name: name, Help: help}, []string{"schema"})
}

// pgCounter is a counter of the PostgreSQL store, caddy_ark_<name>, by
// schema.
func pgCounter(name, help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "caddy", Subsystem: "ark", Name: name, Help: help}, []string{"schema"})
}
