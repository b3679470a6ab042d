package ark

import (
	"errors"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// The Prometheus metrics of the ark handlers, on the registry of each
// config (ctx.GetMetricsRegistry(), shown at the admin endpoint's
// /metrics). The counters live here, not in a config, and every new config
// registers the same collectors, so their values survive config reloads.
// Every label value is bound once, here: counting a request is one atomic
// add.
var arkMetrics = newMetrics()

// How a table load was started: the label values of
// caddy_ark_table_loads_total.
const (
	triggerConfig = iota // a config (re)load
	triggerWatch         // the watch option saw a table file change
	numTriggers
)

var triggerNames = [numTriggers]string{"config", "watch"}

type metrics struct {
	resolutions *prometheus.CounterVec
	byOutcome   [numOutcomes]prometheus.Counter

	cacheHits   prometheus.Counter
	cacheMisses prometheus.Counter

	tableLoads   *prometheus.CounterVec
	minted       *prometheus.CounterVec // by shoulder
	mintsFull    *prometheus.CounterVec // by shoulder
	storeFails   prometheus.Counter
	tableDamaged prometheus.Counter
	loadsOK      [numTriggers]prometheus.Counter
	loadsError   [numTriggers]prometheus.Counter
}

func newMetrics() *metrics {
	const ns, sub = "caddy", "ark"
	m := &metrics{
		resolutions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "resolutions_total",
			Help: "Requests for identifiers, by how they were answered.",
		}, []string{"outcome"}),
		cacheHits: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "cache_hits_total",
			Help: "Resolutions answered from the cache.",
		}),
		cacheMisses: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "cache_misses_total",
			Help: "Resolutions computed because the cache did not hold them.",
		}),
		tableLoads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "table_loads_total",
			Help: "Reads of a set of table files, by what started them (config, watch) and result (ok, error). A table shared by a config reload is not read again.",
		}, []string{"trigger", "result"}),
		minted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "minted_total",
			Help: "Names minted, by shoulder.",
		}, []string{"shoulder"}),
		mintsFull: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "mint_exhausted_total",
			Help: "Mint requests refused because the shoulder's template has no names left, by shoulder.",
		}, []string{"shoulder"}),
		storeFails: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "store_errors_total",
			Help: "Store lookups that failed, each answered 503.",
		}),
		tableDamaged: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "table_damaged_total",
			Help: "Lookups that found a compiled table damaged or shrunk while mapped, each answered 503.",
		}),
	}
	for o := range outcome(numOutcomes) {
		m.byOutcome[o] = m.resolutions.WithLabelValues(o.String())
	}
	for t, name := range triggerNames {
		m.loadsOK[t] = m.tableLoads.WithLabelValues(name, "ok")
		m.loadsError[t] = m.tableLoads.WithLabelValues(name, "error")
	}
	return m
}

// tableEntriesDesc describes caddy_ark_table_entries, which is collected
// per config by an entriesCollector.
var tableEntriesDesc = prometheus.NewDesc("caddy_ark_table_entries",
	"Identifiers in the tables served by the config's ark handlers, each distinct table counted once.", nil, nil)

// registerMetrics registers the ark metrics on the registry of a config
// and enrolls h in the config's caddy_ark_table_entries. The registry
// already has them when another ark handler of the config registered
// first.
func registerMetrics(reg *prometheus.Registry, h *Handler) (*entriesCollector, error) {
	for _, c := range []prometheus.Collector{arkMetrics.resolutions, arkMetrics.cacheHits, arkMetrics.cacheMisses, arkMetrics.tableLoads,
		arkMetrics.minted, arkMetrics.mintsFull, arkMetrics.storeFails, arkMetrics.tableDamaged} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) || are.ExistingCollector != c {
				return nil, err
			}
		}
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
	h.live.entries = ec
	return nil
}

// leaveMetrics takes the handler, being cleaned up, out of the config's
// caddy_ark_table_entries. It may be called more than once.
func (h *Handler) leaveMetrics() {
	if h.live.entries != nil {
		h.live.entries.leave(h)
		h.live.entries = nil
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
	seen := make(map[entryTable]struct{}, len(ec.handlers))
	n := 0
	for h := range ec.handlers {
		rs := h.resolver.Load()
		if rs == nil {
			continue
		}
		if _, dup := seen[rs.table]; !dup {
			seen[rs.table] = struct{}{}
			n += rs.table.len()
		}
	}
	ec.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(tableEntriesDesc, prometheus.GaugeValue, float64(n))
}
