package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/stats"
)

// Stats answers GET stats for who: the site's resolution statistics for
// the days from to to, "YYYY-MM-DD" and inclusive (stats.ParsePeriod
// reads them from a query), as the caller may see them (see serveStats).
// A site that keeps no statistics is a 404.
func (a *API) Stats(ctx context.Context, s Site, who *Caller, from, to string) (*stats.Report, error) {
	ss, err := a.session(s, who)
	if err != nil {
		return nil, err
	}
	col, err := ss.statsCollector()
	if err != nil {
		return nil, err
	}
	r, err := col.Report(ctx, ss.key.statsQuery(from, to))
	return r, failed(err)
}

// statsCollector returns the site's statistics, if it keeps them and the
// key may read some.
func (ss *session) statsCollector() (*stats.Collector, error) {
	col := ss.site.Stats()
	if col == nil {
		return nil, refuse(http.StatusNotFound, "statistics are not kept here: the ark block has no stats")
	}
	if !ss.key.anyScope(false, func(sc *scope) bool { return !sc.admin }) {
		return nil, refuse(http.StatusForbidden, "%s may read no identifiers, so no statistics", ss.key.who())
	}
	return col, nil
}

// serveStats answers GET stats: the site's resolution statistics for a
// period (?days=<n>, or ?from=<day>&to=<day>; the last 30 days by
// default), as a stats.Report, with the counts not written to the store
// yet. A key sees the shoulders and identifiers that it may read: a
// scoped key sees the rows of the shoulders its scopes cover whole, and
// no requests that name none of the site's (invalid, foreign), which only
// a "*" scope sees.
func (c *apiCall) serveStats() error {
	col, err := c.statsCollector()
	if err != nil {
		return c.fail(err)
	}
	q := c.r.URL.Query()
	for name := range q {
		if name != "days" && name != "from" && name != "to" {
			return writeAPIError(c.w, http.StatusBadRequest, "unknown parameter "+name+": stats takes days, or from and to")
		}
	}
	from, to, err := stats.ParsePeriod(q, time.Now())
	if err != nil {
		return writeAPIError(c.w, http.StatusBadRequest, err.Error())
	}
	r, err := col.Report(c.r.Context(), c.key.statsQuery(from, to))
	if err != nil {
		return c.fail(err)
	}
	return writeJSON(c.w, http.StatusOK, r)
}

// statsQuery is the query of a report from to to, of what the key may
// read.
func (k *apiKey) statsQuery(from, to string) stats.Query {
	return stats.Query{
		From: from, To: to,
		Shoulder: k.mayReadShoulder,
		ID:       func(id string) bool { return k.may(false, id) },
	}
}

// mayReadShoulder reports whether the key may read every identifier that
// a statistics row's shoulder stands for: "ark:12345/x5", "ark:12345",
// "urn:isbn", or "" for requests naming none of the site's.
func (k *apiKey) mayReadShoulder(shoulder string) bool {
	switch {
	case shoulder == "":
		return k.anyScope(false, func(sc *scope) bool { return sc.all })
	case strings.HasPrefix(shoulder, "urn:"):
		return k.anyScope(false, func(sc *scope) bool { return sc.all || sc.urn == shoulder+":" })
	}
	naan, name, err := normalize.ParsePrefix(shoulder)
	return err == nil && k.mayPrefix(false, naan, name)
}
