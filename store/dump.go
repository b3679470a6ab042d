package store

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Dumper is a store that can be copied whole into another, of the same
// backend or another: every binding (names minted but not bound, and
// withdrawals, included), the history with its sequence numbers, versions,
// times and names, the minters' counters, the resolution statistics
// (see StatsStore), count for count, and the API keys made at runtime
// (see KeyStore), hashed as stored. Both backends implement it;
// `caddy ark store dump` and `caddy ark store load` use it through
// WriteDump and ReadDump.
type Dumper interface {
	// Dump calls fn with everything the store holds, as of one moment:
	// every binding in key order, then every history record in sequence
	// order, then every counter in name order, then every row of the
	// statistics in StatRow order, then every stored API key in name
	// order. It stops at the first error of fn,
	// which it returns.
	Dump(ctx context.Context, fn func(*Item) error) error

	// Load fills an empty store with the items that next returns until
	// io.EOF, in Dump's order (see CheckOrder), keeping them as they are:
	// versions, times, names and sequence numbers; later changes continue
	// the sequence; statistics keep their counts exactly, as they are
	// (no list is cut to a site's top), keys with their hashes. A store
	// that holds anything (a binding, a history record, a counter, a row
	// of statistics or an API key) is
	// refused with ErrNotEmpty. An error from next, or ctx ending, keeps
	// nothing.
	Load(ctx context.Context, next func() (*Item, error)) error
}

// Item is one thing a store holds, in a dump: exactly one of its fields
// is set.
type Item struct {
	Binding *Binding   `json:"binding,omitempty"`
	Change  *Change    `json:"change,omitempty"`
	Counter *Counter   `json:"counter,omitempty"`
	Stat    *StatRow   `json:"stat,omitempty"`
	Key     *StoredKey `json:"key,omitempty"`
}

// Counter is a minter's counter: the value Count adds to.
type Counter struct {
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// The lists of StatRow: one for each kind of count in Stats.
const (
	StatResolutions = "resolutions" // a ResolutionCount
	StatTop         = "top"         // a NameCount of Stats.Top
	StatNotFound    = "not_found"   // a NameCount of Stats.NotFound
)

// StatRow is one row of the resolution statistics (see StatsStore), in a
// dump: a ResolutionCount when List is StatResolutions (Shoulder and
// Outcome, no ID), or a NameCount of the list named (ID, no Shoulder or
// Outcome). A dump holds the rows in increasing order
// of day, then list name, then shoulder and outcome, or ID.
type StatRow struct {
	// The day, "YYYY-MM-DD" in UTC.
	Day string `json:"day"`

	// StatResolutions, StatTop or StatNotFound.
	List string `json:"list"`

	// The shoulder and the outcome of a ResolutionCount; the shoulder may
	// be "".
	Shoulder string `json:"shoulder,omitempty"`
	Outcome  string `json:"outcome,omitempty"`

	// The identifier of a NameCount.
	ID string `json:"id,omitempty"`

	Count uint64 `json:"count"`
}

// check says what is wrong with r, if anything.
func (r *StatRow) check() error {
	if _, err := time.Parse(time.DateOnly, r.Day); err != nil {
		return fmt.Errorf("statistics: day %q is not YYYY-MM-DD", r.Day)
	}
	switch r.List {
	case StatResolutions:
		if r.ID != "" {
			return fmt.Errorf("statistics: a row of %s with an id", r.List)
		}
	case StatTop, StatNotFound:
		if r.Shoulder != "" || r.Outcome != "" {
			return fmt.Errorf("statistics: a row of %s with a shoulder or an outcome", r.List)
		}
	default:
		return fmt.Errorf("statistics: unknown list %q", r.List)
	}
	return nil
}

// compare orders statistics rows as a dump holds them.
func (r *StatRow) compare(o *StatRow) int {
	return cmp.Or(cmp.Compare(r.Day, o.Day), cmp.Compare(r.List, o.List), cmp.Compare(r.Shoulder, o.Shoulder), cmp.Compare(r.Outcome, o.Outcome), cmp.Compare(r.ID, o.ID))
}

// ErrNotEmpty refuses to load a dump into a store that holds something:
// the dump's versions and history would not fit what is there.
var ErrNotEmpty = errors.New("the store is not empty: a dump loads only into a new, empty store")

// CheckOrder returns next, checked: every item has exactly one part, the
// bindings come first, in increasing key order, then the history records
// in increasing sequence order, then the counters in increasing name
// order, then the statistics rows, well formed, in increasing StatRow
// order, then the API keys in increasing name order. An item out of order is an error naming its position (1-based;
// in a dump, item n is on line n+1). Every backend's Load reads through it.
func CheckOrder(next func() (*Item, error)) func() (*Item, error) {
	n, stage := 0, 0
	var lastKey string
	var lastSeq uint64
	var lastStat *StatRow
	return func() (*Item, error) {
		it, err := next()
		if err != nil {
			return nil, err
		}
		n++
		s, key, seq := 0, "", uint64(0)
		parts := 0
		if it.Binding != nil {
			s, key, parts = 1, it.Binding.Key, parts+1
		}
		if it.Change != nil {
			s, seq, parts = 2, it.Change.Seq, parts+1
		}
		if it.Counter != nil {
			s, key, parts = 3, it.Counter.Name, parts+1
		}
		if it.Stat != nil {
			s, parts = 4, parts+1
		}
		if it.Key != nil {
			s, key, parts = 5, it.Key.Name, parts+1
		}
		switch {
		case parts != 1:
			return nil, fmt.Errorf("item %d: %d parts, want one binding, change, counter, stat or key", n, parts)
		case s < stage:
			return nil, fmt.Errorf("item %d: out of order: bindings come first, then the history, then the counters, then the statistics, then the keys", n)
		case s == 5 && (it.Key.Hash == "" || len(it.Key.Scopes) == 0):
			return nil, fmt.Errorf("item %d: key %q without a hash or scopes", n, it.Key.Name)
		case s == 4:
			if err := it.Stat.check(); err != nil {
				return nil, fmt.Errorf("item %d: %w", n, err)
			}
			if stage == 4 && it.Stat.compare(lastStat) <= 0 {
				return nil, fmt.Errorf("item %d: statistics row %+v after %+v: rows must increase by day, list, shoulder and outcome, or id", n, *it.Stat, *lastStat)
			}
			stage, lastStat = s, it.Stat
			return it, nil
		case s == stage && s == 2 && seq <= lastSeq:
			return nil, fmt.Errorf("item %d: history record %d after %d: the sequence must increase", n, seq, lastSeq)
		case s == stage && s != 2 && key <= lastKey:
			return nil, fmt.Errorf("item %d: %q after %q: keys and names must increase", n, key, lastKey)
		case s == 2 && seq == 0:
			return nil, fmt.Errorf("item %d: history record with sequence 0", n)
		}
		stage, lastKey, lastSeq = s, key, seq
		return it, nil
	}
}

// DumpFormat and DumpVersion name the format of WriteDump in its first
// line. Version 2 added the statistics rows; ReadDump still reads
// version 1, which has none.
const (
	DumpFormat  = "caddy-ark store dump"
	DumpVersion = 2
)

// DumpVersionNoStats is the last version without statistics rows, the
// only one that versions of caddy-ark before DumpVersion 2 read:
// WriteDumpNoStats writes it.
const DumpVersionNoStats = 1

// DumpCounts is how many of each item a dump holds.
type DumpCounts struct {
	Bindings int `json:"bindings"`
	Changes  int `json:"changes"`
	Counters int `json:"counters"`

	// The statistics rows; a dump of version 1 counts none.
	Stats int `json:"stats"`

	// The API keys (KeyStore). A store without any dumps as it did
	// before keys were dumped, byte for byte; one with keys writes key
	// lines and this count, which a caddy-ark from before refuses whole
	// (unknown fields) rather than load without the keys. A dump of
	// version 1 holds none.
	Keys int `json:"keys,omitempty"`
}

// String says the counts, as store dump and store load print them.
func (c DumpCounts) String() string {
	s := c.withoutStats().String() + ", " + plural(c.Stats, "statistics row")
	if c.Keys > 0 {
		s += ", " + plural(c.Keys, "API key")
	}
	return s
}

// withoutStats is c without the count of statistics rows.
func (c DumpCounts) withoutStats() DumpCountsNoStats {
	return DumpCountsNoStats{Bindings: c.Bindings, Changes: c.Changes, Counters: c.Counters}
}

// plural writes n nouns, in the singular for one.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// add counts it.
func (c *DumpCounts) add(it *Item) {
	switch {
	case it.Binding != nil:
		c.Bindings++
	case it.Change != nil:
		c.Changes++
	case it.Counter != nil:
		c.Counters++
	case it.Stat != nil:
		c.Stats++
	case it.Key != nil:
		c.Keys++
	}
}

// dumpLine is one line of a dump: the header, an item, or the end.
type dumpLine struct {
	Format  string `json:"format,omitempty"`
	Version int    `json:"version,omitempty"`
	Item
	End *DumpCounts `json:"end,omitempty"`
}

// WriteDump writes d's dump to w as NDJSON, one JSON object a line: the
// header {"format":"caddy-ark store dump","version":2}, then each item
// ({"binding":{...}}, {"change":{...}}, {"counter":{...}} or
// {"stat":{...}}), then
// {"end":{"bindings":n,"changes":n,"counters":n,"stats":n}}, by which
// ReadDump tells a whole dump from one cut short.
func WriteDump(ctx context.Context, d Dumper, w io.Writer) (DumpCounts, error) {
	var counts DumpCounts
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(dumpLine{Format: DumpFormat, Version: DumpVersion}); err != nil {
		return counts, err
	}
	err := d.Dump(ctx, func(it *Item) error {
		counts.add(it)
		return enc.Encode(dumpLine{Item: *it})
	})
	if err != nil {
		return counts, err
	}
	if err := enc.Encode(dumpLine{End: &counts}); err != nil {
		return counts, err
	}
	return counts, bw.Flush()
}

// ReadDump loads the dump that WriteDump wrote into d, an empty store
// (see Dumper.Load), and returns what it holds; it reads version 1 too,
// which holds no statistics (and its end line counts none). A dump that
// is not one,
// is cut short, holds anything unknown or out of order, or does not
// hold what its end line counts loads nothing.
func ReadDump(ctx context.Context, d Dumper, r io.Reader) (DumpCounts, error) {
	return ReadDumpChecked(ctx, d, r, nil)
}

// ReadDumpChecked is ReadDump calling check, when not nil, with every
// item as it is read: an error of check is an error of the item's line,
// and the dump loads nothing.
func ReadDumpChecked(ctx context.Context, d Dumper, r io.Reader, check func(*Item) error) (DumpCounts, error) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	dec.DisallowUnknownFields()
	var (
		counts DumpCounts
		n      int // lines read
	)
	read := func() (*dumpLine, error) {
		var l dumpLine
		if err := dec.Decode(&l); err != nil {
			if err == io.EOF {
				return nil, fmt.Errorf("line %d: the dump ends without its end line: it was cut short", n+1)
			}
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		n++
		return &l, nil
	}
	head, err := read()
	if err != nil {
		return counts, err
	}
	if head.Format != DumpFormat || head.Version < DumpVersionNoStats || head.Version > DumpVersion || head.End != nil || head.Item != (Item{}) {
		return counts, fmt.Errorf("line 1: not a %s of version %d to %d", DumpFormat, DumpVersionNoStats, DumpVersion)
	}
	next := func() (*Item, error) {
		l, err := read()
		if err != nil {
			return nil, err
		}
		if l.Format != "" || l.Version != 0 {
			return nil, fmt.Errorf("line %d: a header inside the dump", n)
		}
		if l.End == nil {
			if (l.Stat != nil || l.Key != nil) && head.Version == DumpVersionNoStats {
				return nil, fmt.Errorf("line %d: a statistics row or a key in a dump of version %d", n, head.Version)
			}
			if check != nil {
				if err := check(&l.Item); err != nil {
					return nil, fmt.Errorf("line %d: %w", n, err)
				}
			}
			counts.add(&l.Item)
			return &l.Item, nil
		}
		if l.Item != (Item{}) {
			return nil, fmt.Errorf("line %d: an end line holding an item", n)
		}
		if *l.End != counts {
			return nil, fmt.Errorf("line %d: the dump holds %v, its end line counts %v", n, counts, *l.End)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("line %d: more follows the end line", n)
		}
		return nil, io.EOF
	}
	err = d.Load(ctx, next)
	return counts, err
}
