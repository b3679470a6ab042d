package targets

import (
	"context"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// CheckNow makes the targets of the identifiers under p due at once, in
// st, and returns how many identifiers have them; the checker that holds
// the lease (on any node) checks them next, politely as always. Paused
// targets stay paused.
func CheckNow(ctx context.Context, tables []table.Table, st store.Store, p Prefix) (int, error) {
	tc, ok := st.(store.TargetChecks)
	if !ok {
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
		cs, err := tc.LookupTargetChecks(ctx, targets)
		if err != nil {
			return err
		}
		var refs []store.TargetRef
		for i, c := range cs {
			if c == nil {
				refs = append(refs, store.TargetRef{Target: targets[i], Key: batch[targets[i]], Due: now})
			}
		}
		if len(refs) > 0 {
			if sweep == 0 {
				if sweep, err = tc.BeginTargetSweep(ctx); err != nil {
					return err
				}
			}
			if err := tc.MarkTargets(ctx, sweep, refs); err != nil {
				return err
			}
		}
		clear(batch)
		// Those just added too: a sweep may have added them meanwhile,
		// due later.
		return tc.SetTargetsDue(ctx, targets, now)
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
