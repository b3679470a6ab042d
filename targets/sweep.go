package targets

import (
	"context"
	"errors"
	"hash/fnv"
	"net/http"
	"strings"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
	"go.uber.org/zap"
)

// Checkable reports whether a target bound with status is checked: a
// redirect's URL or path, or a path served in place. A withdrawal, a name
// minted but not bound, and templates (which have no fixed target) are
// not.
func Checkable(target string, status int) bool {
	switch status {
	case http.StatusOK:
		return strings.HasPrefix(target, "/")
	case http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect:
		return target != ""
	}
	return false
}

// EachIdentifier calls fn with every identifier under p that has a
// checkable target: those of the tables, then those of the store that no
// table assigns (a table's assignment wins), until fn returns an error,
// which it returns.
func EachIdentifier(ctx context.Context, tables []table.Table, st store.Store, p Prefix, fn func(key, target string) error) error {
	for _, t := range tables {
		n := 0
		for key, a := range t.All() {
			if n++; n%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if p.Covers(key) && Checkable(a.Target, a.Status) {
				if err := fn(key, a.Target); err != nil {
					return err
				}
			}
		}
	}
	if st == nil {
		return nil
	}
	return st.Each(ctx, func(b *store.Binding) error {
		if !p.Covers(b.Key) || !Checkable(b.Target, b.Status) {
			return nil
		}
		for _, t := range tables {
			if _, ok := t.Lookup(b.Key); ok {
				return nil
			}
		}
		return fn(b.Key, b.Target)
	})
}

// tables returns the current tables of the checker's sites.
func (ch *Checker) tables() []table.Table {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	var ts []table.Table
	for _, s := range ch.sites {
		if t := s.Table(); t != nil {
			ts = append(ts, t)
		}
	}
	return ts
}

// firstDue is when a new target is first checked: a time within the next
// interval that depends on the target only, so that a site's first pass,
// and a big import, spread over the interval.
func (s *settings) firstDue(target string, now time.Time) time.Time {
	h := fnv.New64a()
	h.Write([]byte(target))
	return now.Add(time.Duration(h.Sum64() % uint64(s.interval)))
}

// sweepRest is how many times as long as it worked a sweep rests: it
// takes at most a quarter of a core.
const sweepRest = 3

// errLeaseLost stops a sweep whose checker lost the lease.
var errLeaseLost = errors.New("the lease went to another checker")

// sweep finds the targets of every identifier: the new ones are added,
// due within the next interval, and those no longer used are forgotten.
func (ch *Checker) sweep(ctx context.Context) error {
	start := time.Now()
	n, err := ch.tc.BeginTargetSweep(ctx)
	if err != nil {
		return err
	}
	refs := make([]store.TargetRef, 0, markBatch)
	working := time.Now()
	flush := func() error {
		if len(refs) == 0 {
			return nil
		}
		if !ch.renew(ctx) {
			return errLeaseLost
		}
		err := ch.tc.MarkTargets(ctx, n, refs)
		refs = refs[:0]
		if err != nil {
			return err
		}
		// Rest sweepRest times as long as this batch took, so that a
		// sweep takes at most a share of a core from the site's answers.
		t := time.NewTimer(time.Since(working) * sweepRest)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		working = time.Now()
		return nil
	}
	ids := 0
	err = EachIdentifier(ctx, ch.tables(), ch.st, Prefix{}, func(key, target string) error {
		ids++
		refs = append(refs, store.TargetRef{Target: target, Key: key, Due: ch.set.firstDue(target, time.Now()), Paused: ch.set.skipped(key, target)})
		if len(refs) == markBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	removed, err := ch.tc.EndTargetSweep(ctx, n)
	if err != nil {
		return err
	}
	ch.mu.Lock()
	ch.lastSweep = n
	ch.mu.Unlock()
	ch.logger.Info("targets_check: swept the targets", zap.Uint64("sweep", n), zap.Int("identifiers", ids),
		zap.Int("forgotten", removed), zap.Duration("took", time.Since(start)))
	if states, err := ch.tc.TargetStates(ctx); err == nil {
		total := 0
		for _, n := range states {
			total += n
		}
		if need := time.Duration(float64(total) / ch.set.maxRate * float64(time.Second)); need > ch.set.interval {
			ch.logger.Warn("targets_check: a pass cannot check every target within the interval at max_rate: raise max_rate or the interval",
				zap.Int("targets", total), zap.Float64("max_rate", ch.set.maxRate), zap.Duration("interval", ch.set.interval), zap.Duration("pass_needs", need))
		}
	}
	ch.poke()
	return nil
}

// markKeys marks the targets of the store's keys that changed, as of the
// last sweep, so that a new binding's target is checked without waiting
// for the next sweep.
func (ch *Checker) markKeys(ctx context.Context, keys []string) error {
	ch.mu.Lock()
	sweep := ch.lastSweep
	ch.mu.Unlock()
	if sweep == 0 {
		return nil // the first sweep finds them
	}
	tables := ch.tables()
	for len(keys) > 0 {
		batch := keys[:min(len(keys), markBatch)]
		keys = keys[len(batch):]
		bs, err := ch.st.Lookup(ctx, batch)
		if err != nil {
			return err
		}
		var refs []store.TargetRef
	next:
		for _, b := range bs {
			if b == nil || !Checkable(b.Target, b.Status) {
				continue
			}
			for _, t := range tables {
				if _, ok := t.Lookup(b.Key); ok {
					continue next
				}
			}
			refs = append(refs, store.TargetRef{Target: b.Target, Key: b.Key, Due: ch.set.firstDue(b.Target, time.Now()), Paused: ch.set.skipped(b.Key, b.Target)})
		}
		if len(refs) > 0 {
			if err := ch.tc.MarkTargets(ctx, sweep, refs); err != nil {
				return err
			}
		}
	}
	return nil
}
