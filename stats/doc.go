// Package stats keeps resolution statistics: how many requests each
// shoulder had per day and outcome, the identifiers requested most, and
// the not-found report (names under the site's own NAANs that resolve to
// nothing: minted and never bound, or mistyped). A Collector counts what
// the handler observes in memory, off the request path, and adds its
// counts to the store (a store.StatsStore) at most once a flush interval
// and when it is closed; its Report reads the store and adds the counts
// not written yet. No client address is ever kept.
//
// It imports store, resolve and caddy (for the configuration's durations),
// never the handler.
package stats
