package targets

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// The process's target metrics; every config registers the same
// collectors, so that their values survive reloads.
var (
	targetsGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "caddy", Subsystem: "ark", Name: "targets",
		Help: "Distinct targets of the checked sites, by the state their checks found (unchecked, ok, failing, broken, suspect, unverifiable).",
	}, []string{"state"})
	checksTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "ark", Name: "target_checks_total",
		Help: "Checks of targets, by result: ok, suspect, failed, unverifiable, or deferred (429 or 503 with Retry-After, which counts as nothing).",
	}, []string{"result"})
)

// RegisterMetrics registers caddy_ark_targets and
// caddy_ark_target_checks_total on reg; registering them twice is no
// error.
func RegisterMetrics(reg *prometheus.Registry) error {
	for _, c := range []prometheus.Collector{targetsGauge, checksTotal} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) || are.ExistingCollector != c {
				return err
			}
		}
	}
	return nil
}
