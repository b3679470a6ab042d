package console

import (
	"net/http"

	"github.com/caddy-ark/caddy-ark/stats"
)

// homeView is what the front page shows.
type homeView struct {
	Scopes    []string
	Stats     *statsView // nil when there are none to show
	StatsNote string     // why not
}

// statsView is the front page's statistics.
type statsView struct {
	Report *stats.Report
	Chart  *dayChart
}

// home answers the front page.
func (p *page) home() error {
	v := homeView{Scopes: p.sess.key.Scopes()}
	v.Stats, v.StatsNote = p.stats()
	return p.render(http.StatusOK, view{Title: "Identifiers", Page: v}, "home")
}

// stats reads the last 30 days' statistics from the API, as the key may
// see them; without them, it says why.
func (p *page) stats() (*statsView, string) {
	rep, err := p.api(apiRequest{method: http.MethodGet, route: "stats", query: "days=30"})
	switch {
	case err != nil:
		return nil, "Statistics: " + err.Error()
	case rep.status == http.StatusNotFound:
		return nil, "This site keeps no statistics of the requests it answers (stats in the ark block)."
	case !rep.ok():
		return nil, "Statistics: " + rep.problem()
	}
	var r stats.Report
	if err := rep.decode(&r); err != nil {
		return nil, "Statistics: " + err.Error()
	}
	return &statsView{Report: &r, Chart: newDayChart(&r)}, ""
}
