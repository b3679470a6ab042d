package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/caddy-ark/caddy-ark/normalize"
	"github.com/caddy-ark/caddy-ark/store"
)

// The page sizes of GET ids and GET changes.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
)

// maxQueryText is the longest text that q may look for, in bytes.
const maxQueryText = 1024

// IDsQuery is a query of GET ids: which of the store's bindings to list,
// from where, how many.
type IDsQuery struct {
	// Identifiers that start with Prefix, normalized: "ark:12345/x5",
	// "ark:12345/" (a NAAN), "urn:isbn:"; "" for all.
	Prefix string
	// Bindings whose target or a metadata value holds Text, ignoring case.
	Text string
	// Bindings in this state; store.StateAny for all.
	State store.State
	// The identifier after which the page starts: the last of the page
	// before; "" for the first page.
	After string
	// The most bindings on the page, 1 to MaxPageSize.
	Limit int
}

// ParseIDsQuery reads the query of GET ids: prefix, q, status, after and
// limit. A value that cannot be read is a 400 naming it.
func ParseIDsQuery(v url.Values) (IDsQuery, error) {
	q := IDsQuery{Text: v.Get("q"), After: v.Get("after"), Limit: DefaultPageSize}
	var err error
	if q.Prefix, err = NormalizePrefix(v.Get("prefix")); err != nil {
		return q, err
	}
	if err := checkLine("q", q.Text, maxQueryText); err != nil {
		return q, err
	}
	if err := checkLine("after", q.After, maxQueryText); err != nil {
		return q, err
	}
	st, ok := store.ParseState(v.Get("status"))
	if !ok {
		return q, refuse(http.StatusBadRequest, "status %q: bound, withdrawn or minted", v.Get("status"))
	}
	q.State = st
	if q.Limit, err = parseLimit(v.Get("limit")); err != nil {
		return q, err
	}
	return q, nil
}

// parseLimit reads the limit of a page: DefaultPageSize when it is not
// given.
func parseLimit(s string) (int, error) {
	if s == "" {
		return DefaultPageSize, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxPageSize {
		return 0, refuse(http.StatusBadRequest, "limit %q: a number from 1 to %d", s, MaxPageSize)
	}
	return n, nil
}

// checkLine refuses a query parameter that is not one line of UTF-8 text
// of at most max bytes.
func checkLine(name, s string, max int) error {
	switch {
	case len(s) > max:
		return refuse(http.StatusBadRequest, "%s: longer than %d bytes", name, max)
	case !utf8.ValidString(s):
		return refuse(http.StatusBadRequest, "%s: not UTF-8", name)
	case strings.ContainsFunc(s, unicode.IsControl):
		return refuse(http.StatusBadRequest, "%s: holds a control character", name)
	}
	return nil
}

// NormalizePrefix returns the normal form of an identifier prefix, as the
// store's keys start: an ARK's NAAN and the start of a Name
// ("ark:/12345/x5" → "ark:12345/x5", "ark:12345" → "ark:12345/"), a URN
// namespace and the start of a name ("URN:ISBN" → "urn:isbn:"), "" for
// none. Anything else is a 400.
func NormalizePrefix(raw string) (string, error) {
	switch {
	case raw == "":
		return "", nil
	case len(raw) >= 4 && strings.EqualFold(raw[:4], "urn:"):
		nid, nss, _ := strings.Cut(raw[4:], ":")
		if strings.ContainsAny(nid, "/?#") || checkLine("prefix", raw, maxQueryText) != nil {
			return "", refuse(http.StatusBadRequest, "prefix %q: a URN prefix is urn:<namespace>[:<start of a name>], such as urn:isbn", raw)
		}
		if nid == "" {
			return "urn:", nil
		}
		return "urn:" + strings.ToLower(nid) + ":" + nss, nil
	}
	naan, shoulder, err := normalize.ParsePrefix(raw)
	if err != nil {
		return "", refuse(http.StatusBadRequest, "prefix: %v: give an ARK prefix such as ark:12345/x5 or a URN prefix such as urn:isbn", err)
	}
	return "ark:" + naan + "/" + shoulder, nil
}

// IDsPage is a page of GET ids.
type IDsPage struct {
	// The bindings, in identifier order, as GET id/<id> gives them.
	Bindings []*store.Binding
	// The value of after for the next page; "" when this page is the
	// last. A full page has one, and the page after it may be empty.
	Next string
}

// checkLimit refuses a page size (a query's Limit) outside 1 to
// MaxPageSize.
func checkLimit(limit int) error {
	if limit < 1 || limit > MaxPageSize {
		return refuse(http.StatusBadRequest, "limit %d: from 1 to %d", limit, MaxPageSize)
	}
	return nil
}

// errPageFull stops a listing once its page is full.
var errPageFull = errors.New("the page is full")

// ListIDs answers GET ids for who: the store's bindings that q selects
// and the caller may read, of identifiers the store answers for (see
// GET id/<id>), in identifier order. Those the caller may not read are
// left out without a word: they are not counted, and the page is filled
// from further on.
func (a *API) ListIDs(ctx context.Context, s Site, who *Caller, q IDsQuery) (*IDsPage, error) {
	ss, err := a.session(s, who)
	if err != nil {
		return nil, err
	}
	if err := checkLimit(q.Limit); err != nil {
		return nil, err
	}
	page := &IDsPage{}
	for _, prefix := range ss.key.ranges(false, q.Prefix) {
		err := ss.store.List(ctx, store.ListQuery{Prefix: prefix, After: q.After, State: q.State, Text: q.Text, Want: q.Limit - len(page.Bindings)},
			func(b *store.Binding) error {
				if !ss.key.may(false, b.Key) || !ss.managed(b.Key) {
					return nil
				}
				page.Bindings = append(page.Bindings, b)
				if len(page.Bindings) == q.Limit {
					return errPageFull
				}
				return nil
			})
		if errors.Is(err, errPageFull) {
			page.Next = page.Bindings[len(page.Bindings)-1].Key
			break
		}
		if err != nil {
			return nil, callError(err)
		}
	}
	return page, nil
}

// ids answers GET ids: NDJSON, one binding a line, with a Link to the
// next page when this one is full.
func (c *apiCall) ids() error {
	q, err := ParseIDsQuery(c.r.URL.Query())
	if err != nil {
		return c.fail(err)
	}
	page, err := c.a.ListIDs(c.r.Context(), c.site, &Caller{c.key}, q)
	if err != nil {
		return c.fail(err)
	}
	if page.Next != "" {
		c.setNextLink("ids", "after", page.Next)
	}
	return writeNDJSON(c.w, len(page.Bindings), func(i int) any { return page.Bindings[i] })
}

// setNextLink sets the Link to the next page of route: this request's
// query with param set to value.
func (c *apiCall) setNextLink(route, param, value string) {
	v := c.r.URL.Query()
	v.Set(param, value)
	c.w.Header().Set("Link", "<"+c.a.Prefix+"/"+route+"?"+v.Encode()+`>; rel="next"`)
}

// writeNDJSON answers 200 with n JSON values, one a line.
func writeNDJSON(w http.ResponseWriter, n int, item func(i int) any) error {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	out := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for i := range n {
		if err := enc.Encode(item(i)); err != nil {
			return err
		}
	}
	return out.Flush()
}
