package api

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// changesScanMax is the most history records one page of GET changes
// reads: a key that may read little of a long history gets a short page,
// with a Link to go on from where it stopped.
const changesScanMax = 10000

// defaultChangesSince is how far back GET changes goes without since.
const defaultChangesSince = 24 * time.Hour

// ChangesQuery is a query of GET changes.
type ChangesQuery struct {
	// Changes after this sequence number; when 0, from Since.
	After uint64
	// Changes from the first one made at or after this time.
	Since time.Time
	// Only identifiers starting with Prefix (see NormalizePrefix).
	Prefix string
	// The most changes on the page, 1 to MaxPageSize.
	Limit int
	// Only the changes made by this writer, as the history names it: a
	// key's name, or "person:<name>"; "" for every writer.
	Writer string
}

// ParseChangesQuery reads the query of GET changes: since (an RFC 3339
// time, or the sequence number of the last change seen), prefix, writer
// and limit. Without since, the changes of the last 24 hours.
func ParseChangesQuery(v url.Values, now time.Time) (ChangesQuery, error) {
	q := ChangesQuery{Since: now.Add(-defaultChangesSince)}
	var err error
	if s := v.Get("since"); s != "" {
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			q.After, q.Since = n, time.Time{}
		} else if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			q.Since = t
		} else {
			return q, refuse(http.StatusBadRequest, "since %q: an RFC 3339 time (2026-11-23T07:00:00Z) or the sequence number of the last change seen", s)
		}
	}
	if q.Prefix, err = NormalizePrefix(v.Get("prefix")); err != nil {
		return q, err
	}
	if q.Limit, err = parseLimit(v.Get("limit")); err != nil {
		return q, err
	}
	q.Writer = strings.TrimSpace(v.Get("writer"))
	return q, nil
}

// ChangesPage is a page of GET changes.
type ChangesPage struct {
	// The changes, in sequence order, as the history of GET id/<id>
	// shows them.
	Changes []*store.Change
	// The value of since for the next page, 0 when none may follow.
	Next uint64
}

// Changes answers GET changes for who: the history records of the
// identifiers the caller may read and the store answers for, in sequence
// order: who changed what, when, from what to what. At most
// changesScanMax records are read for a page: a page that is not full but
// has a Next stopped there.
func (a *API) Changes(ctx context.Context, s Site, who *Caller, q ChangesQuery) (*ChangesPage, error) {
	ss, err := a.session(s, who)
	if err != nil {
		return nil, err
	}
	if err := checkLimit(q.Limit); err != nil {
		return nil, err
	}
	page := &ChangesPage{}
	scanned := 0
	var last uint64
	err = ss.store.Changes(ctx, store.ChangesQuery{After: q.After, Since: q.Since, Want: q.Limit}, func(ch *store.Change) error {
		last = ch.Seq
		if scanned++; scanned > changesScanMax {
			return errPageFull
		}
		if !strings.HasPrefix(ch.Key, q.Prefix) || (q.Writer != "" && ch.By != q.Writer) || !ss.key.may(false, ch.Key) || !ss.managed(ch.Key) {
			return nil
		}
		page.Changes = append(page.Changes, ch)
		if len(page.Changes) == q.Limit {
			return errPageFull
		}
		return nil
	})
	switch {
	case errors.Is(err, errPageFull) && len(page.Changes) == q.Limit:
		page.Next = page.Changes[len(page.Changes)-1].Seq
	case errors.Is(err, errPageFull):
		page.Next = last - 1 // the record it stopped at is read again
	case err != nil:
		return nil, callError(err)
	}
	return page, nil
}

// changes answers GET changes: NDJSON, one history record a line, with a
// Link to the next page when more may follow.
func (c *apiCall) changes() error {
	q, err := ParseChangesQuery(c.r.URL.Query(), time.Now())
	if err != nil {
		return c.fail(err)
	}
	page, err := c.a.Changes(c.r.Context(), c.site, &Caller{c.key}, q)
	if err != nil {
		return c.fail(err)
	}
	if page.Next != 0 {
		c.setNextLink("changes", "since", strconv.FormatUint(page.Next, 10))
	}
	return writeNDJSON(c.w, len(page.Changes), func(i int) any { return page.Changes[i] })
}
