package console

import (
	"net/http"
	"net/url"
	"time"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/stats"
)

// homeView is what the front page shows.
type homeView struct {
	Scopes    []string
	Stats     *statsView // nil when there are none to show
	StatsNote string     // why not
	Groups    []string   // a person's groups that give them access
}

// statsView is the front page's statistics.
type statsView struct {
	Report *stats.Report
	Chart  *dayChart
}

// home answers the front page.
func (p *page) home() error {
	v := homeView{Scopes: p.sess.key.Scopes(), Groups: p.sess.key.Groups()}
	v.Stats, v.StatsNote = p.stats()
	return p.render(http.StatusOK, view{Title: "Identifiers", Page: v}, "home")
}

// stats reads the last 30 days' statistics from the API, as the key may
// see them; without them, it says why.
func (p *page) stats() (*statsView, string) {
	from, to, err := stats.ParsePeriod(url.Values{"days": {"30"}}, time.Now())
	if err != nil {
		return nil, "Statistics: " + err.Error()
	}
	r, err := p.c.api.Stats(p.r.Context(), p.site, p.sess.key, from, to)
	switch {
	case err != nil && api.ErrorStatus(err) == http.StatusNotFound:
		return nil, "This site keeps no statistics of the requests it answers (stats in the ark block)."
	case err != nil:
		return nil, "Statistics: " + err.Error()
	}
	return &statsView{Report: r, Chart: newDayChart(r)}, ""
}
