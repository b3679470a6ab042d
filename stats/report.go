package stats

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// maxPeriodDays is the longest period a report covers.
const maxPeriodDays = 800

// defaultPeriodDays is the period of a report that names none: the last
// 30 days, today included.
const defaultPeriodDays = 30

// Query is what a report covers, and what its reader may see.
type Query struct {
	// The first and the last day, "YYYY-MM-DD" in UTC, both included.
	From, To string

	// Whether the reader may see the counts of a shoulder, as
	// store.ResolutionCount names it ("ark:12345/x5", "ark:12345",
	// "urn:isbn" or ""), and of an identifier. Nil: all.
	Shoulder func(shoulder string) bool
	ID       func(id string) bool
}

// Report is a site's resolution statistics for a period: what GET
// <api>/stats answers, and what the console draws.
type Report struct {
	// The period, "YYYY-MM-DD" in UTC, both days included.
	From string `json:"from"`
	To   string `json:"to"`

	// All requests of the period, and by outcome ("redirect": 12).
	Total    uint64            `json:"total"`
	Outcomes map[string]uint64 `json:"outcomes"`

	// Every day of the period, in order, with its requests.
	Days []DayCount `json:"days"`

	// The shoulders that had requests, the most requested first.
	Shoulders []ShoulderCount `json:"shoulders"`

	// The identifiers requested most over the period, at most the
	// configured top, the most requested first.
	Top []IDCount `json:"top"`

	// The names under the site's own NAANs that resolved to nothing,
	// requested most over the period, at most the configured not_found.
	NotFound []IDCount `json:"not_found"`

	// The requests among the above that this server counted and has not
	// written to the store yet.
	Unwritten uint64 `json:"unwritten"`

	// The requests this server did not count since it started, because
	// the counting fell behind.
	Dropped uint64 `json:"dropped"`
}

// DayCount is one day's requests.
type DayCount struct {
	Day      string            `json:"day"`
	Total    uint64            `json:"total"`
	Outcomes map[string]uint64 `json:"outcomes"`
}

// ShoulderCount is one shoulder's requests over the period.
type ShoulderCount struct {
	// As store.ResolutionCount names it: "ark:12345/x5", "ark:12345",
	// "urn:isbn", or "" for requests naming none of the site's.
	Shoulder string            `json:"shoulder"`
	Total    uint64            `json:"total"`
	Outcomes map[string]uint64 `json:"outcomes"`

	// Its requests on each day of the report's Days, in the same order.
	Days []uint64 `json:"days"`
}

// IDCount is one identifier's requests over the period.
type IDCount struct {
	ID    string `json:"id"`
	Count uint64 `json:"count"`
}

// ParsePeriod reads a report's period from query parameters: "days" (the
// last n days, today included), or "from" and "to" (days, "YYYY-MM-DD";
// "to" defaults to today, "from" to 29 days before "to"); neither is the
// last 30 days. now gives today. Its errors say what is wrong, in a line.
func ParsePeriod(q url.Values, now time.Time) (from, to string, err error) {
	today := now.UTC().Format(dayLayout)
	if d := q.Get("days"); d != "" {
		if q.Get("from") != "" || q.Get("to") != "" {
			return "", "", fmt.Errorf("give days, or from and to, not both")
		}
		n, err := strconv.Atoi(d)
		if err != nil || n < 1 || n > maxPeriodDays {
			return "", "", fmt.Errorf("days %q: a number of days from 1 to %d", d, maxPeriodDays)
		}
		return addDays(today, 1-n), today, nil
	}
	to = today
	if t := q.Get("to"); t != "" {
		if _, err := time.Parse(dayLayout, t); err != nil {
			return "", "", fmt.Errorf("to %q: a day such as 2025-01-31", t)
		}
		to = t
	}
	from = addDays(to, 1-defaultPeriodDays)
	if f := q.Get("from"); f != "" {
		if _, err := time.Parse(dayLayout, f); err != nil {
			return "", "", fmt.Errorf("from %q: a day such as 2025-01-01", f)
		}
		from = f
	}
	return from, to, checkPeriod(from, to)
}

// checkPeriod checks the days of a period.
func checkPeriod(from, to string) error {
	f, err := time.Parse(dayLayout, from)
	if err != nil {
		return fmt.Errorf("from %q: a day such as 2025-01-01", from)
	}
	t, err := time.Parse(dayLayout, to)
	if err != nil {
		return fmt.Errorf("to %q: a day such as 2025-01-31", to)
	}
	switch days := int(t.Sub(f)/day) + 1; {
	case days < 1:
		return fmt.Errorf("from %s is after to %s", from, to)
	case days > maxPeriodDays:
		return fmt.Errorf("from %s to %s: %d days, more than a report covers (%d)", from, to, days, maxPeriodDays)
	}
	return nil
}

// addDays returns the day n days after d (before, for n < 0).
func addDays(d string, n int) string {
	t, _ := time.Parse(dayLayout, d)
	return t.AddDate(0, 0, n).Format(dayLayout)
}

// Report returns the statistics of q's period that q's reader may see:
// those in the store and those counted here and not written yet. It fails
// when the store cannot be read.
func (c *Collector) Report(ctx context.Context, q Query) (*Report, error) {
	if err := checkPeriod(q.From, q.To); err != nil {
		return nil, err
	}
	c.flushMu.RLock()
	defer c.flushMu.RUnlock()
	if c.closed.Load() { // Close waits for the reports under way before its store goes
		return nil, fmt.Errorf("%w: the configuration is being replaced", store.ErrUnavailable)
	}
	kept, err := c.store.ReadStats(ctx, q.From, q.To)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.settle()
	counted := c.cur.tally()
	c.mu.Unlock()
	unwritten := newTally()
	unwritten.addTally(c.pending)
	unwritten.addTally(counted)
	all := newTally()
	all.addStats(kept)
	all.addTally(unwritten)
	r := c.report(all, q)
	for k, n := range unwritten.res {
		if k.day >= q.From && k.day <= q.To && visible(q.Shoulder, k.shoulder) {
			r.Unwritten += n
		}
	}
	r.Dropped = c.dropped.Load()
	return r, nil
}

// visible reports whether may allows s; a nil may allows all.
func visible(may func(string) bool, s string) bool { return may == nil || may(s) }

// report adds up t's counts of q's period that q's reader may see.
func (c *Collector) report(t *tally, q Query) *Report {
	r := &Report{From: q.From, To: q.To, Outcomes: map[string]uint64{}, Days: []DayCount{}, Shoulders: []ShoulderCount{}}
	index := map[string]int{} // day → position in r.Days
	for d := q.From; d <= q.To; d = addDays(d, 1) {
		index[d] = len(r.Days)
		r.Days = append(r.Days, DayCount{Day: d, Outcomes: map[string]uint64{}})
	}
	shoulders := map[string]*ShoulderCount{}
	for k, n := range t.res {
		i, ok := index[k.day]
		if !ok || !visible(q.Shoulder, k.shoulder) {
			continue
		}
		r.Total += n
		r.Outcomes[k.outcome] += n
		r.Days[i].Total += n
		r.Days[i].Outcomes[k.outcome] += n
		s := shoulders[k.shoulder]
		if s == nil {
			s = &ShoulderCount{Shoulder: k.shoulder, Outcomes: map[string]uint64{}, Days: make([]uint64, len(r.Days))}
			shoulders[k.shoulder] = s
		}
		s.Total += n
		s.Outcomes[k.outcome] += n
		s.Days[i] += n
	}
	for _, s := range shoulders {
		r.Shoulders = append(r.Shoulders, *s)
	}
	slices.SortFunc(r.Shoulders, func(a, b ShoulderCount) int {
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return cmp.Compare(a.Shoulder, b.Shoulder)
	})
	r.Top = topOf(t.top, index, q.ID, c.top)
	r.NotFound = topOf(t.notFound, index, q.ID, c.notFound)
	return r
}

// topOf returns the keep most counted identifiers of list over the days
// of index that may allows.
func topOf(list map[string]map[string]uint64, index map[string]int, may func(string) bool, keep int) []IDCount {
	sum := map[string]uint64{}
	for day, ids := range list {
		if _, ok := index[day]; !ok {
			continue
		}
		for id, n := range ids {
			if visible(may, id) {
				sum[id] += n
			}
		}
	}
	out := ranked(sum)
	return out[:min(len(out), keep)]
}
