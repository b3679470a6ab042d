package console

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/store"
)

// searchPageSize is how many identifiers a page of the search shows.
const searchPageSize = 50

// searchQuery is a search of the store: the query of GET ids, without
// its paging.
type searchQuery struct {
	Text   string // q
	Prefix string
	Status string // bound, withdrawn, minted, or "" for any
}

// searchOf reads a search from the query of a console page.
func searchOf(v url.Values) searchQuery {
	return searchQuery{Text: strings.TrimSpace(v.Get("q")), Prefix: strings.TrimSpace(v.Get("prefix")), Status: v.Get("status")}
}

// values returns the query of q, as GET ids and the console's pages take
// it, without the parameters it leaves empty.
func (q searchQuery) values() url.Values {
	v := url.Values{}
	for name, value := range map[string]string{"q": q.Text, "prefix": q.Prefix, "status": q.Status} {
		if value != "" {
			v.Set(name, value)
		}
	}
	return v
}

// ids reads a page of the search q, from after, of at most limit
// identifiers: the API's GET ids, in process, as the key. A search the
// API refuses is a *refusal.
func (p *page) ids(q searchQuery, after string, limit int) (*api.IDsPage, error) {
	v := q.values()
	v.Set("limit", strconv.Itoa(limit))
	v.Set("after", after)
	iq, err := api.ParseIDsQuery(v)
	if err == nil {
		var pg *api.IDsPage
		if pg, err = p.c.api.ListIDs(p.r.Context(), p.site, p.sess.key, iq); err == nil {
			return pg, nil
		}
	}
	return nil, refused(err)
}

// searchView is what the search page shows.
type searchView struct {
	Q        searchQuery
	Searched bool
	Statuses []statusOption
	Rows     []searchRow
	Next     string // the address of the next page
	CSV      string // the addresses of this search's exports
	JSON     string
}

// statusOption is a state the search may be limited to.
type statusOption struct{ Value, Label string }

// searchStatuses are the states the search offers.
var searchStatuses = []statusOption{{"", "any"}, {"bound", "bound"}, {"withdrawn", "withdrawn"}, {"minted", "minted, not bound yet"}}

// searchRow is one identifier found.
type searchRow struct {
	B     *store.Binding
	State string
	When  string
}

// search answers the search page: the form, and a page of what it finds.
func (p *page) search() error {
	qv := p.r.URL.Query()
	q := searchOf(qv)
	v := searchView{Q: q, Statuses: searchStatuses, CSV: p.exportURL(q, "csv"), JSON: p.exportURL(q, "json")}
	pg, err := p.ids(q, qv.Get("after"), searchPageSize)
	if err != nil {
		var ref *refusal
		if errors.As(err, &ref) {
			return p.render(ref.status, view{Title: "Search", Error: ref.msg, Page: v}, "search")
		}
		return p.fail(err)
	}
	for _, b := range pg.Bindings {
		v.Rows = append(v.Rows, searchRow{B: b, State: state(b), When: when(b.Updated)})
	}
	if pg.Next != "" {
		nv := q.values()
		nv.Set("after", pg.Next)
		v.Next = p.c.base + "search?" + nv.Encode()
	}
	v.Searched = len(qv) > 0
	return p.render(http.StatusOK, view{Title: "Search", Page: v}, "search")
}

// exportURL returns the address of the export of q in format.
func (p *page) exportURL(q searchQuery, format string) string {
	v := q.values()
	v.Set("format", format)
	return p.c.base + "export?" + v.Encode()
}
