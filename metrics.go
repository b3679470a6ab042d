package ark

import (
	"errors"
	"sync"

	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddy-ark/caddy-ark/targets"
	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// tableEntriesDesc describes caddy_ark_table_entries, which is collected
// per config by an entriesCollector.
var tableEntriesDesc = prometheus.NewDesc("caddy_ark_table_entries",
	"Identifiers in the tables served by the config's ark handlers, each distinct table counted once.", nil, nil)

// registerMetrics registers the ark counters on the registry of a config
// and enrolls h in the config's caddy_ark_table_entries.
func registerMetrics(reg *prometheus.Registry, h *Handler) (*entriesCollector, error) {
	if err := metrics.Register(reg); err != nil {
		return nil, err
	}
	ec := &entriesCollector{handlers: map[*Handler]struct{}{}}
	if err := reg.Register(ec); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			return nil, err
		}
		existing, ok := are.ExistingCollector.(*entriesCollector)
		if !ok {
			return nil, err
		}
		ec = existing
	}
	ec.mu.Lock()
	ec.handlers[h] = struct{}{}
	ec.mu.Unlock()
	return ec, nil
}

// joinMetrics registers the metrics on the config's registry, before
// anything can fail: Caddy's admin endpoint shows the registry of the last
// config loaded even when it failed, and a failed table load is counted.
func (h *Handler) joinMetrics(ctx caddy.Context) error {
	reg := ctx.GetMetricsRegistry()
	if reg == nil {
		return nil
	}
	ec, err := registerMetrics(reg, h)
	if err != nil {
		return err
	}
	h.entries = ec
	if h.TargetsCheck != nil {
		return targets.RegisterMetrics(reg)
	}
	return nil
}

// leaveMetrics takes the handler, being cleaned up, out of the config's
// caddy_ark_table_entries. It may be called more than once.
func (h *Handler) leaveMetrics() {
	if h.entries != nil {
		h.entries.leave(h)
		h.entries = nil
	}
}

// entriesCollector reports caddy_ark_table_entries for one config: the
// identifiers in the tables its ark handlers serve at the time of the
// scrape. It belongs to the config's registry and goes with it.
type entriesCollector struct {
	mu       sync.Mutex
	handlers map[*Handler]struct{}
}

// leave removes h.
func (ec *entriesCollector) leave(h *Handler) {
	ec.mu.Lock()
	delete(ec.handlers, h)
	ec.mu.Unlock()
}

// Describe implements prometheus.Collector.
func (ec *entriesCollector) Describe(ch chan<- *prometheus.Desc) { ch <- tableEntriesDesc }

// Collect implements prometheus.Collector.
func (ec *entriesCollector) Collect(ch chan<- prometheus.Metric) {
	ec.mu.Lock()
	seen := make(map[table.Table]struct{}, len(ec.handlers))
	n := 0
	for h := range ec.handlers {
		rs := h.resolver.Load()
		if rs == nil {
			continue
		}
		if _, dup := seen[rs.Table()]; !dup {
			seen[rs.Table()] = struct{}{}
			n += rs.Table().Len()
		}
	}
	ec.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(tableEntriesDesc, prometheus.GaugeValue, float64(n))
}
