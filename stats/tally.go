package stats

import (
	"cmp"
	"maps"
	"slices"

	"github.com/caddy-ark/caddy-ark/store"
)

// resKey is a row of the resolution counts.
type resKey struct {
	day, shoulder, outcome string
}

// tally is a set of exact counts: the counts that are not written yet,
// and what a report adds up.
type tally struct {
	res      map[resKey]uint64
	top      map[string]map[string]uint64 // day → identifier → count
	notFound map[string]map[string]uint64
}

func newTally() *tally {
	return &tally{res: map[resKey]uint64{}, top: map[string]map[string]uint64{}, notFound: map[string]map[string]uint64{}}
}

func (t *tally) empty() bool { return len(t.res) == 0 && len(t.top) == 0 && len(t.notFound) == 0 }

// addName adds n to the count of id on day in list.
func addName(list map[string]map[string]uint64, day, id string, n uint64) {
	ids := list[day]
	if ids == nil {
		ids = map[string]uint64{}
		list[day] = ids
	}
	ids[id] += n
}

// addStats adds the counts of s.
func (t *tally) addStats(s *store.Stats) {
	for _, r := range s.Resolutions {
		t.res[resKey{r.Day, r.Shoulder, r.Outcome}] += r.Count
	}
	for _, n := range s.Top {
		addName(t.top, n.Day, n.ID, n.Count)
	}
	for _, n := range s.NotFound {
		addName(t.notFound, n.Day, n.ID, n.Count)
	}
}

// addTally adds the counts of o.
func (t *tally) addTally(o *tally) {
	for k, n := range o.res {
		t.res[k] += n
	}
	for _, l := range [][2]map[string]map[string]uint64{{t.top, o.top}, {t.notFound, o.notFound}} {
		for day, ids := range l[1] {
			for id, n := range ids {
				addName(l[0], day, id, n)
			}
		}
	}
}

// trim keeps the keep most counted identifiers of each day of list, ties
// going to the smaller identifier, as a store does.
func trim(list map[string]map[string]uint64, keep int) {
	for _, ids := range list {
		if len(ids) <= keep {
			continue
		}
		for _, c := range ranked(ids)[keep:] {
			delete(ids, c.ID)
		}
	}
}

// ranked returns ids by count, highest first, then by identifier.
func ranked(ids map[string]uint64) []IDCount {
	out := make([]IDCount, 0, len(ids))
	for id, n := range ids {
		out = append(out, IDCount{ID: id, Count: n})
	}
	slices.SortFunc(out, func(a, b IDCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// stats returns the counts as a store adds them.
func (t *tally) stats() *store.Stats {
	s := &store.Stats{}
	for k, n := range t.res {
		s.Resolutions = append(s.Resolutions, store.ResolutionCount{Day: k.day, Shoulder: k.shoulder, Outcome: k.outcome, Count: n})
	}
	for _, day := range slices.Sorted(maps.Keys(t.top)) {
		for id, n := range t.top[day] {
			s.Top = append(s.Top, store.NameCount{Day: day, ID: id, Count: n})
		}
	}
	for _, day := range slices.Sorted(maps.Keys(t.notFound)) {
		for id, n := range t.notFound[day] {
			s.NotFound = append(s.NotFound, store.NameCount{Day: day, ID: id, Count: n})
		}
	}
	return s
}
