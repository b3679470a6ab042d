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
}

// registerPGMetrics registers the PostgreSQL store's metrics on the
// registry of ctx's config, unless another store of the config did.
func registerPGMetrics(ctx caddy.Context) error {
	reg := ctx.GetMetricsRegistry()
	for _, c := range []prometheus.Collector{pgMetrics.up, pgMetrics.unavailable, pgMetrics.circuit, pgMetrics.refused} {
		if err := reg.Register(c); err != nil && !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
			return err
		}
	}
	return nil
}
