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
	up: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "caddy", Subsystem: "ark", Name: "postgres_up",
		Help: "Whether the PostgreSQL store's server answered its last operation (1) or not (0), by schema.",
	}, []string{"schema"}),
	unavailable: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "ark", Name: "postgres_unavailable_total",
		Help: "Operations of the PostgreSQL store that failed because its server was down, refused connections or did not answer in time, by schema.",
	}, []string{"schema"}),
	circuit: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "caddy", Subsystem: "ark", Name: "postgres_circuit",
		Help: "The state of the PostgreSQL store's circuit breaker, by schema: 0 closed (operations go to the server), 1 half-open (one probes), 2 open (operations fail at once).",
	}, []string{"schema"}),
	refused: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "ark", Name: "postgres_circuit_refused_total",
		Help: "Operations of the PostgreSQL store that failed at once, without asking the server, because the circuit was open, by schema.",
	}, []string{"schema"}),
	readsUp: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "caddy", Subsystem: "ark", Name: "postgres_reads_up",
		Help: "With a read_dsn: whether the server of the PostgreSQL store's reads answered its last operation (1) or not (0), by schema.",
	}, []string{"schema"}),
	readsCircuit: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "caddy", Subsystem: "ark", Name: "postgres_reads_circuit",
		Help: "With a read_dsn: the state of the circuit breaker of the PostgreSQL store's reads, by schema: 0 closed, 1 half-open, 2 open.",
	}, []string{"schema"}),
	standby: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "caddy", Subsystem: "ark", Name: "postgres_standby",
		Help: "Whether the server the node follows the PostgreSQL store's history from (the read_dsn's, else the dsn's) was a standby (1) or the primary (0) when last read, by schema.",
	}, []string{"schema"}),
	replayLag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "caddy", Subsystem: "ark", Name: "postgres_replay_lag_seconds",
		Help: "How far behind the primary the standby the node follows was when last read, in seconds (0 on the primary, and on a standby that replayed all it received), by schema.",
	}, []string{"schema"}),
	historySeq: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "caddy", Subsystem: "ark", Name: "postgres_history_seq",
		Help: "The sequence number of the newest record of the PostgreSQL store's history that the node has read, by schema.",
	}, []string{"schema"}),
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
