package targets

import (
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// inflight is the targets a checker has taken from the store to check and
// whose results it has not written yet, with the due time each was
// claimed until. While a target is in flight it is taken again only to
// renew its claim, never to be checked a second time at once: that check
// would be judged from the record as it was before the first, and its
// result, written after the first's, would undo it (the target's own
// page forgotten, its failures counted from the start again). The
// checker's mu guards it.
type inflight struct {
	claims map[string]time.Time // by target: the due time of its claim
	again  map[string]bool      // targets made due (CheckNow) while in flight
}

func newInflight() *inflight {
	return &inflight{claims: map[string]time.Time{}, again: map[string]bool{}}
}

// add records target as taken, claimed until due.
func (f *inflight) add(target string, due time.Time) {
	f.claims[target] = due
}

// has reports whether target is in flight.
func (f *inflight) has(target string) bool {
	_, ok := f.claims[target]
	return ok
}

// note reads c, a target as the store holds it: when it is in flight and
// due at another time than its claim, someone made it due (a check on
// demand), and it is to be checked again once its result is written.
func (f *inflight) note(c *store.TargetCheck) {
	// The store may keep times to the microsecond only.
	if claim, ok := f.claims[c.Target]; ok && c.Due.Sub(claim).Abs() > time.Millisecond {
		f.again[c.Target] = true
	}
}

// end forgets target, whose result is written or whose check was given
// up, and reports whether it is to be checked again at once.
func (f *inflight) end(target string) bool {
	again := f.again[target]
	delete(f.claims, target)
	delete(f.again, target)
	return again
}
