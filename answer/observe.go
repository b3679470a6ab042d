package answer

import (
	"net/http"

	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/targets"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// resolutionsByOutcome is caddy_ark_resolutions_total with each outcome's
// label bound once: counting a request is one atomic add.
var resolutionsByOutcome = func() (c [resolve.NumOutcomes]prometheus.Counter) {
	for o := range resolve.Outcome(resolve.NumOutcomes) {
		c[o] = metrics.Counters.Resolutions.WithLabelValues(o.String())
	}
	return c
}()

// observe records the answer to a request for an identifier: it counts
// the outcome (and hands the answer to the statistics, when they are on),
// adds the normalized identifier and the outcome to the access log
// ("ark_id", "ark_outcome"), and logs the resolution at debug level. An
// answer that resolved nothing (a readiness check, a method refused before
// resolution) is not observed.
func (an *Answerer) observe(r *http.Request, a *reply) {
	res := a.res
	if res == nil || targets.IsCheck(r) {
		return // nothing resolved, or the site's own check of an in-place target, not a client's request
	}
	out := a.out
	resolutionsByOutcome[out].Inc()
	if an.stats != nil {
		an.stats.Observe(res, out)
	}
	var fields zapcore.ObjectMarshaler = res // no allocation in the common case
	if out != res.Outcome {
		fields = resolve.Answer{ID: res.Key, Outcome: out}
	}
	if accessLogged(r) {
		if extra, ok := r.Context().Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields); ok {
			extra.Add(zap.Inline(fields)) // allocates: only worth it when the fields are logged
		}
	}
	if ce := an.logger.Check(zapcore.DebugLevel, "resolved"); ce != nil {
		query := r.URL.RawQuery
		if orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request); ok && orig.URL != nil {
			query = orig.URL.RawQuery // r may already be rewritten to its target
		}
		ce.Write(zap.String("raw", a.core), zap.String("query", query),
			zap.String("id", res.Key), zap.String("outcome", out.String()), zap.String("target", a.target))
	}
}

// accessLogged reports whether the server of r may write access logs.
func accessLogged(r *http.Request) bool {
	srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	return !ok || srv.Logs != nil
}
