package oai

import (
	"context"
	"sync"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// maxSets bounds how many sets ListSets gathers.
const maxSets = 100000

// setIndex is the sets of the repository's records, kept between
// requests so that ListSets, or a list of a set no record is in, reads
// what changed since the last request rather than every record: the
// table's sets, gathered again when the table changes (a new datestamp or
// length), and the store's, read from its history in commit order up to
// the last record read. A record is never removed from the store (a
// withdrawn identifier is a deleted record), so its sets only grow.
type setIndex struct {
	mu sync.Mutex

	gathered   bool // the table's sets were gathered
	hasTable   bool // of a table (false: of none)
	tableStamp time.Time
	tableLen   int
	tableSets  []set

	seq       uint64 // the last history record read
	caughtUp  bool   // the history was read to its end once
	storeSets []set
	seen      map[string]bool // the store's sets by spec
}

// sets brings the index up to date with src and returns the sets, the
// table's first, then the store's, each in the order first met. Reading
// every record (the first time, and for a table changed since) takes a
// slot of scans, errBusy when none is free; reading the history recorded
// since the last call does not.
func (ix *setIndex) sets(ctx context.Context, src *sources, scans scanSlots) ([]set, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	tableChanged := !ix.gathered || (src.table != nil) != ix.hasTable ||
		src.table != nil && (!src.tableTime.Equal(ix.tableStamp) || src.table.Len() != ix.tableLen)
	if tableChanged || src.store != nil && !ix.caughtUp {
		release, ok := scans.take()
		if !ok {
			return nil, errBusy
		}
		defer release()
	}
	if tableChanged {
		ix.gathered, ix.hasTable, ix.tableSets = true, src.table != nil, nil
		if src.table != nil {
			ix.tableStamp, ix.tableLen = src.tableTime, src.table.Len()
			seen := map[string]bool{}
			for key := range src.table.All() {
				ix.tableSets = addSets(ix.tableSets, seen, key)
			}
		}
	}
	if src.store != nil {
		if err := ix.readHistory(ctx, src.store); err != nil {
			return nil, err
		}
	}
	out := ix.tableSets
	if len(ix.storeSets) > 0 {
		inTable := make(map[string]bool, len(ix.tableSets))
		for _, s := range ix.tableSets {
			inTable[s.spec] = true
		}
		out = append([]set(nil), ix.tableSets...)
		for _, s := range ix.storeSets {
			if !inTable[s.spec] && len(out) < maxSets {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// readHistory adds the sets of the identifiers bound in the history
// records after the last one read.
func (ix *setIndex) readHistory(ctx context.Context, st store.Store) error {
	if ix.seen == nil {
		ix.seen = map[string]bool{}
	}
	err := st.Changes(ctx, store.ChangesQuery{After: ix.seq, Want: 1000}, func(ch *store.Change) error {
		if ch.New != nil && ch.New.Status != 0 {
			ix.storeSets = addSets(ix.storeSets, ix.seen, ch.Key)
		}
		ix.seq = ch.Seq
		return nil
	})
	if err != nil {
		return err
	}
	ix.caughtUp = true
	return nil
}

// addSets appends to sets those of key not yet seen.
func addSets(sets []set, seen map[string]bool, key string) []set {
	for _, s := range setsOf(key) {
		if !seen[s.spec] && len(sets) < maxSets {
			seen[s.spec] = true
			sets = append(sets, s)
		}
	}
	return sets
}

// holds reports whether some record of src is in the set spec.
func (ix *setIndex) holds(ctx context.Context, src *sources, scans scanSlots, spec string) (bool, error) {
	sets, err := ix.sets(ctx, src, scans)
	if err != nil {
		return false, err
	}
	for _, s := range sets {
		if s.spec == spec {
			return true, nil
		}
	}
	return len(sets) >= maxSets, nil
}
