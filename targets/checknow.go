package targets

import (
	"context"
	"hash/fnv"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// jitter is a time below a millisecond that depends on target only:
// targets made due at once come from the store in the order of their due
// times, then of the targets themselves, which groups them by origin;
// with it they come mixed, so that the checker's first batches keep many
// origins busy rather than a few.
func jitter(target string) time.Duration {
	h := fnv.New64a()
	h.Write([]byte(target))
	return time.Duration(h.Sum64() % uint64(time.Millisecond))
}

// CheckNow makes the targets of the identifiers under p due at once, in
// st, and returns how many identifiers have them; the checker that holds
// the lease (on any node) checks them next, politely as always. Paused
// targets stay paused.
func CheckNow(ctx context.Context, tables []table.Table, st store.Store, p Prefix) (int, error) {
	if st == nil {
		return 0, nil
	}
	now := time.Now()
	var sweep uint64 // for targets no sweep has found yet
	ids := 0
	batch := map[string]string{} // target → key
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		targets := make([]string, 0, len(batch))
		for t := range batch {
			targets = append(targets, t)
		}
		cs, err := st.LookupTargetChecks(ctx, targets)
		if err != nil {
			return err
		}
		due := make([]store.TargetRef, len(targets))
		var refs []store.TargetRef
		for i, t := range targets {
			due[i] = store.TargetRef{Target: t, Key: batch[t], Due: now.Add(jitter(t))}
			if cs[i] == nil {
				refs = append(refs, due[i])
			}
		}
		if len(refs) > 0 {
			if sweep == 0 {
				if sweep, err = st.BeginTargetSweep(ctx); err != nil {
					return err
				}
			}
			if err := st.MarkTargets(ctx, sweep, refs); err != nil {
				return err
			}
		}
		clear(batch)
		// Those just added too: a sweep may have added them meanwhile,
		// due later.
		return st.SetTargetsDue(ctx, due)
	}
	err := EachIdentifier(ctx, tables, st, p, func(key, target string) error {
		ids++
		if _, seen := batch[target]; !seen {
			batch[target] = key
		}
		if len(batch) == reportBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return ids, err
	}
	return ids, flush()
}
