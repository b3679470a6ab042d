package console

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

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

// idsPage is a page of GET ids.
type idsPage struct {
	bindings []*store.Binding
	next     string // the after of the next page; "" after the last
}

// ids reads a page of the search q through the API, from after, of at
// most limit identifiers.
func (p *page) ids(q searchQuery, after string, limit int) (*idsPage, error) {
	v := q.values()
	v.Set("limit", strconv.Itoa(limit))
	if after != "" {
		v.Set("after", after)
	}
	rep, err := p.api(apiRequest{method: http.MethodGet, route: "ids", query: v.Encode()})
	if err != nil {
		return nil, err
	}
	if !rep.ok() {
		return nil, &refusal{rep.status, rep.problem()}
	}
	pg := &idsPage{next: nextAfter(rep.header.Get("Link"))}
	sc := bufio.NewScanner(bytes.NewReader(rep.body.Bytes()))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var b store.Binding
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil {
			return nil, err
		}
		pg.bindings = append(pg.bindings, &b)
	}
	return pg, sc.Err()
}

// nextAfter returns the after parameter of the rel="next" link of a Link
// field, "" when there is none.
func nextAfter(link string) string {
	for l := range strings.SplitSeq(link, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(l), ";")
		if !ok || !strings.Contains(params, `rel="next"`) {
			continue
		}
		u, err := url.Parse(strings.Trim(strings.TrimSpace(target), "<>"))
		if err == nil {
			return u.Query().Get("after")
		}
	}
	return ""
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
	for _, b := range pg.bindings {
		v.Rows = append(v.Rows, searchRow{B: b, State: state(b), When: when(b.Updated)})
	}
	if pg.next != "" {
		nv := q.values()
		nv.Set("after", pg.next)
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
