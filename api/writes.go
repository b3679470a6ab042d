package api

import "github.com/caddy-ark/caddy-ark/internal/metrics"

// countWrites counts n identifiers changed by the writer by (an API
// key's name, or person:<name>) in caddy_ark_api_writes_total.
func countWrites(by string, n int) {
	if n > 0 {
		metrics.Counters.APIWrites.WithLabelValues(by).Add(float64(n))
	}
}
