// Package metrics holds the process-wide caddy_ark_* counters that every
// concern counts into: resolutions, the cache, table loads and damage,
// minting, store failures and writes through the API. The counters live
// here, not in a config, and every config registers the same collectors on
// its registry, so their values survive config reloads. It imports nothing from this module.
package metrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Counters are the process's ark counters.
var Counters = newSet()

// How a table load was started: the label values of
// caddy_ark_table_loads_total.
const (
	TriggerConfig = iota // a config (re)load
	TriggerWatch         // the watch option saw a table file change
	NumTriggers
)

// TriggerNames are the label values of the triggers, by trigger.
var TriggerNames = [NumTriggers]string{"config", "watch"}

// Set is the set of ark counters. Every label value that is known in
// advance is bound once: counting is one atomic add.
type Set struct {
	// Resolutions counts requests for identifiers by outcome; the handler
	// binds each outcome's label once.
	Resolutions *prometheus.CounterVec

	CacheHits   prometheus.Counter // resolutions answered from the cache
	CacheMisses prometheus.Counter // resolutions computed

	TableLoads   *prometheus.CounterVec // by trigger and result
	Minted       *prometheus.CounterVec // names minted, by shoulder
	MintsFull    *prometheus.CounterVec // mints refused for an exhausted template, by shoulder
	StoreFails   prometheus.Counter     // store lookups that failed
	TableDamaged prometheus.Counter     // lookups that found a compiled table damaged

	// APIWrites counts identifiers changed through the management API
	// (and the console, which writes through it), by writer: the name of
	// the API key, or person:<name> for a signed-in person; the config
	// lists the keys and whom the people are, so the label is bounded by
	// those who write.
	APIWrites *prometheus.CounterVec

	// The local copy of the store's bindings (localcopy), when a
	// handler keeps one: the last history record applied, the seconds
	// since it last held every change, the records read and not yet
	// applied, the records applied and the reads of the history that
	// failed.
	CopySeq     prometheus.Gauge
	CopyLag     prometheus.Gauge
	CopyBehind  prometheus.Gauge
	CopyApplied prometheus.Counter
	CopyErrors  prometheus.Counter

	LoadsOK    [NumTriggers]prometheus.Counter // table loads that succeeded, by trigger
	LoadsError [NumTriggers]prometheus.Counter // table loads that failed, by trigger
}

func newSet() *Set {
	const ns, sub = "caddy", "ark"
	m := &Set{
		Resolutions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "resolutions_total",
			Help: "Requests for identifiers, by how they were answered.",
		}, []string{"outcome"}),
		CacheHits: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "cache_hits_total",
			Help: "Resolutions answered from the cache.",
		}),
		CacheMisses: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "cache_misses_total",
			Help: "Resolutions computed because the cache did not hold them.",
		}),
		TableLoads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "table_loads_total",
			Help: "Reads of a set of table files, by what started them (config, watch) and result (ok, error). A table shared by a config reload is not read again.",
		}, []string{"trigger", "result"}),
		Minted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "minted_total",
			Help: "Names minted, by shoulder.",
		}, []string{"shoulder"}),
		MintsFull: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "mint_exhausted_total",
			Help: "Mint requests refused because the shoulder's template has no names left, by shoulder.",
		}, []string{"shoulder"}),
		StoreFails: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "store_errors_total",
			Help: "Store lookups that failed, each answered 503.",
		}),
		TableDamaged: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "table_damaged_total",
			Help: "Lookups that found a compiled table damaged or shrunk while mapped, each answered 503.",
		}),
		APIWrites: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "api_writes_total",
			Help: "Identifiers changed through the management API and the console (bound, patched, withdrawn, minted, imported, retargeted), by writer: the API key's name, or person:<name> for a person signed in.",
		}, []string{"writer"}),
		CopySeq: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: ns, Subsystem: sub, Name: "copy_seq",
			Help: "The sequence number of the last history record the local copy of the store applied.",
		}),
		CopyLag: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: ns, Subsystem: sub, Name: "copy_lag_seconds",
			Help: "Seconds since the local copy of the store last held every change the store had committed; it grows while the store cannot be read.",
		}),
		CopyBehind: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: ns, Subsystem: sub, Name: "copy_behind_changes",
			Help: "History records the local copy has read and not yet applied; 0 once it has read to the end of the history.",
		}),
		CopyApplied: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "copy_changes_applied_total",
			Help: "History records applied to the local copy of the store.",
		}),
		CopyErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "copy_errors_total",
			Help: "Reads of the store's history (or builds of the local copy) that failed; the copy answers as it is meanwhile.",
		}),
	}
	for t, name := range TriggerNames {
		m.LoadsOK[t] = m.TableLoads.WithLabelValues(name, "ok")
		m.LoadsError[t] = m.TableLoads.WithLabelValues(name, "error")
	}
	return m
}

// Register registers the counters on the registry of a config. The
// registry already has them when another ark handler of the config
// registered first.
func Register(reg *prometheus.Registry) error {
	m := Counters
	for _, c := range []prometheus.Collector{m.Resolutions, m.CacheHits, m.CacheMisses, m.TableLoads,
		m.Minted, m.MintsFull, m.StoreFails, m.TableDamaged, m.APIWrites,
		m.CopySeq, m.CopyLag, m.CopyBehind, m.CopyApplied, m.CopyErrors} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) || are.ExistingCollector != c {
				return err
			}
		}
	}
	return nil
}
