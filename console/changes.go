package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
)

// changesPageSize is how many changes a page of the feed shows.
const changesPageSize = 100

// changePeriods are the periods the feed offers, by the value of its
// period field.
var changePeriods = []periodOption{
	{"1h", "the last hour", time.Hour},
	{"24h", "the last 24 hours", 24 * time.Hour},
	{"7d", "the last 7 days", 7 * 24 * time.Hour},
	{"30d", "the last 30 days", 30 * 24 * time.Hour},
}

// periodOption is a period the feed may show.
type periodOption struct {
	Value, Label string
	d            time.Duration
}

// changesView is what the feed shows.
type changesView struct {
	Period  string
	Prefix  string
	Writer  string // only the changes of this writer, "" for all
	Periods []periodOption
	Rows    []changeRow
	Next    string // the address of the page after, "" on the last
	From    string // the start of the period, or of this page
}

// changeRow is one change of the feed.
type changeRow struct {
	changeView
	ID string
}

// changes answers the feed of recent changes: the history records of the
// identifiers the key may read, oldest first, a page at a time (the
// API's GET changes, in process, as the key).
func (p *page) changes() error {
	qv := p.r.URL.Query()
	v := changesView{Period: qv.Get("period"), Prefix: strings.TrimSpace(qv.Get("prefix")), Writer: strings.TrimSpace(qv.Get("writer")), Periods: changePeriods}
	period := changePeriods[1]
	for _, o := range changePeriods {
		if o.Value == v.Period {
			period = o
		}
	}
	v.Period = period.Value
	aq := url.Values{"prefix": {v.Prefix}, "writer": {v.Writer}, "limit": {strconv.Itoa(changesPageSize)}}
	if after := qv.Get("after"); after != "" {
		aq.Set("since", after)
		v.From = "change " + after
	} else {
		since := time.Now().Add(-period.d)
		aq.Set("since", since.UTC().Format(time.RFC3339))
		v.From = when(since)
	}
	q, err := api.ParseChangesQuery(aq, time.Now())
	var pg *api.ChangesPage
	if err == nil {
		pg, err = p.c.api.Changes(p.r.Context(), p.site, p.sess.key, q)
	}
	if err != nil {
		return p.render(api.ErrorStatus(err), view{Title: "Recent changes", Error: err.Error(), Page: v}, "changes")
	}
	for _, ch := range pg.Changes {
		v.Rows = append(v.Rows, changeRow{ID: ch.Key, changeView: changeView{Seq: ch.Seq, Time: when(ch.Time), By: ch.By, What: describe(ch.Old, ch.New)}})
	}
	if pg.Next != 0 {
		nv := url.Values{"period": {v.Period}, "after": {strconv.FormatUint(pg.Next, 10)}}
		if v.Prefix != "" {
			nv.Set("prefix", v.Prefix)
		}
		if v.Writer != "" {
			nv.Set("writer", v.Writer)
		}
		v.Next = p.c.base + "changes?" + nv.Encode()
	}
	return p.render(http.StatusOK, view{Title: "Recent changes", Page: v}, "changes")
}
