package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/stats"
)

// stats answers GET stats: the site's resolution statistics for a period
// (?days=<n>, or ?from=<day>&to=<day>; the last 30 days by default), as a
// stats.Report, with the counts not written to the store yet. A key sees
// the shoulders and identifiers that it may read: a scoped key sees the
// rows of the shoulders its scopes cover whole, and no requests that name
// none of the site's (invalid, foreign), which only a "*" scope sees.
func (c *apiCall) stats() error {
	col := c.site.Stats()
	if col == nil {
		return writeAPIError(c.w, http.StatusNotFound, "statistics are not kept here: the ark block has no stats")
	}
	if !c.key.anyScope(false, func(sc *scope) bool { return !sc.admin }) {
		return writeAPIError(c.w, http.StatusForbidden, "the key "+c.key.name+" may read no identifiers, so no statistics")
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
