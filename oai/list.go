package oai

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// clockSlack is how far the times of history records may run against
// their order (writers' clocks, a record timed before its transaction
// took the history's lock): a list starts reading that much before from
// and stops that much after until, keeping only what lies between.
const clockSlack = time.Minute

// errPageRead stops a history read once a chunk is full.
var errPageRead = errors.New("chunk read")

// sources are what a list reads: the table served with its datestamp,
// and the store (nil when there is none).
type sources struct {
	table     table.Table
	tableTime time.Time
	store     store.Store
}

// page reads up to n items of the list c describes from c's position,
// and returns them with the cursor of the rest, nil when they end.
func (src *sources) page(ctx context.Context, c *cursor, n int) ([]item, *cursor, error) {
	w := c.window()
	prefix, _ := parseSet(c.Set)
	var items []item
	if !c.InTable {
		var err error
		if items, err = src.storeItems(ctx, c.Seq, w, prefix, n+1); err != nil {
			return nil, nil, err
		}
	}
	if len(items) <= n {
		start := 0
		if c.InTable {
			start = c.Pos
		}
		items = append(items, src.tableItems(start, w, prefix, n+1-len(items))...)
	}
	if len(items) <= n {
		return items, nil, nil
	}
	items = items[:n]
	next := *c
	next.Done += n
	if last := items[n-1]; last.seq != 0 {
		next.Seq = last.seq
	} else {
		next.InTable, next.Pos = true, last.pos+1
	}
	return items, &next, nil
}

// in reports whether t lies in w.
func (w window) in(t time.Time) bool {
	return !t.After(w.until) && (!w.hasFrom || !t.Before(w.from))
}

// storeItems reads the store's history after seq (from w.from when seq
// is 0) and returns up to n bindings, in commit order, whose latest
// change it finds in w and whose key starts with prefix.
func (src *sources) storeItems(ctx context.Context, after uint64, w window, prefix string, n int) ([]item, error) {
	h, ok := src.store.(store.Historian)
	if !ok || src.store == nil {
		return nil, nil
	}
	want := max(2*n, 100)
	var since time.Time
	if after == 0 && w.hasFrom {
		since = w.from.Add(-clockSlack)
		if since.IsZero() {
			since = time.Unix(0, 1)
		}
	}
	stopAt := w.until.Add(time.Second + clockSlack)
	var items []item
	for len(items) < n {
		var chunk []*store.Change
		err := h.Changes(ctx, store.ChangesQuery{After: after, Since: since, Want: want}, func(ch *store.Change) error {
			chunk = append(chunk, ch)
			if len(chunk) == want || ch.Time.After(stopAt) {
				return errPageRead
			}
			return nil
		})
		if err != nil && !errors.Is(err, errPageRead) {
			return nil, err
		}
		if len(chunk) == 0 {
			return items, nil
		}
		var cands []*store.Change
		var keys []string
		for _, ch := range chunk {
			if ch.New != nil && strings.HasPrefix(ch.Key, prefix) && w.in(ch.Time.UTC().Truncate(time.Second)) {
				cands, keys = append(cands, ch), append(keys, ch.Key)
			}
		}
		if len(keys) > 0 {
			bs, err := src.store.Lookup(ctx, keys)
			if err != nil {
				return nil, err
			}
			for i, b := range bs {
				if b == nil || b.Version != cands[i].New.Version || b.Status == 0 || store.Unexported(b.Meta) {
					continue // changed since, minted and not bound, or kept out (_export: no)
				}
				if !src.inTable(b.Key) {
					items = append(items, storeItem(b, cands[i].Seq))
				}
			}
		}
		last := chunk[len(chunk)-1]
		if len(chunk) < want || last.Time.After(stopAt) {
			return items, nil
		}
		after = last.Seq
	}
	return items, nil
}

// inTable reports whether the table assigns key: the table answers for
// it, as in resolution, so the store's binding is no record of its own.
func (src *sources) inTable(key string) bool {
	if src.table == nil {
		return false
	}
	_, ok := src.table.Lookup(key)
	return ok
}

// tableItems returns up to n table entries from position start whose key
// starts with prefix, when the table's datestamp lies in w.
func (src *sources) tableItems(start int, w window, prefix string, n int) []item {
	stamp := src.tableTime.UTC().Truncate(time.Second)
	if src.table == nil || !w.in(stamp) {
		return nil
	}
	var items []item
	pos := start
	for key, a := range src.table.From(start) {
		if strings.HasPrefix(key, prefix) && !store.Unexported(a.Meta) {
			if items = append(items, tableItem(key, a, stamp, pos)); len(items) == n {
				break
			}
		}
		pos++
	}
	return items
}

// size returns the size of the list c describes when it costs nothing
// to know, -1 otherwise: only a list of the whole table, on a site with
// no store, has a size the table keeps (its length). Counting a list of
// the store, or of a set, reads every binding or entry it could hold:
// seconds at 10^6, too long for a first page (harvesters time out), and
// completeListSize is optional.
func (src *sources) size(c *cursor) int {
	if src.store != nil || src.table == nil || c.Set != "" {
		return -1
	}
	if !c.window().in(src.tableTime.UTC().Truncate(time.Second)) {
		return 0
	}
	return src.table.Len()
}

// find returns the record of key, false when there is none (a minted
// name not bound yet is none, and so is one kept out of OAI-PMH by
// "_export: no").
func (src *sources) find(ctx context.Context, key string) (item, bool, error) {
	if src.table != nil {
		if a, ok := src.table.Lookup(key); ok {
			if store.Unexported(a.Meta) {
				return item{}, false, nil
			}
			return tableItem(key, a, src.tableTime.UTC().Truncate(time.Second), 0), true, nil
		}
	}
	if src.store == nil {
		return item{}, false, nil
	}
	bs, err := src.store.Lookup(ctx, []string{key})
	if err != nil {
		return item{}, false, err
	}
	if len(bs) == 0 || bs[0] == nil || bs[0].Status == 0 || store.Unexported(bs[0].Meta) {
		return item{}, false, nil
	}
	return storeItem(bs[0], 0), true, nil
}

// maxSets bounds how many sets ListSets gathers.
const maxSets = 100000

// sets gathers the sets of every record, in the order first met.
func (src *sources) sets(ctx context.Context) ([]set, error) {
	seen := map[string]bool{}
	var out []set
	add := func(key string) {
		for _, s := range setsOf(key) {
			if !seen[s.spec] && len(out) < maxSets {
				seen[s.spec] = true
				out = append(out, s)
			}
		}
	}
	if src.table != nil {
		for key := range src.table.All() {
			add(key)
		}
	}
	if l, ok := src.store.(store.Lister); ok && src.store != nil {
		err := l.List(ctx, store.ListQuery{}, func(b *store.Binding) error {
			if b.Status != 0 && !store.Unexported(b.Meta) {
				add(b.Key)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
