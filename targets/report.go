package targets

import (
	"context"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// Line is one line of a report: an identifier, its target, and what the
// checks of the target found.
type Line struct {
	ID     string            `json:"id"`
	Target string            `json:"target"`
	State  store.TargetState `json:"state"`

	// The last check's HTTP status ("404") or what failed ("timeout");
	// "" before the first check.
	Code string `json:"code"`

	// Failed checks in a row.
	Failures int `json:"failures"`

	// When the target was last checked, and when its state began; null
	// before the first check.
	Checked *time.Time `json:"checked"`
	Since   *time.Time `json:"since"`

	// Where the last check ended, after redirects, when that is not the
	// target itself.
	Final string `json:"final,omitempty"`
}

// Filter chooses the lines of a report.
type Filter struct {
	State  store.TargetState // only this state; "" for every one
	Prefix Prefix            // only identifiers under it
	Since  time.Time         // only targets whose state began at it or after; zero for all
}

// reportBatch is how many identifiers a report looks up at once.
const reportBatch = 1000

// Report calls fn with a line for every identifier with a checkable
// target (see EachIdentifier) that f chooses, until fn returns an error,
// which it returns. A target the store has no check of is unchecked.
func Report(ctx context.Context, tables []table.Table, st store.Store, f Filter, fn func(*Line) error) error {
	type id struct{ key, target string }
	batch := make([]id, 0, reportBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var checks []*store.TargetCheck
		if st != nil {
			targets := make([]string, len(batch))
			for i, b := range batch {
				targets[i] = b.target
			}
			var err error
			if checks, err = st.LookupTargetChecks(ctx, targets); err != nil {
				return err
			}
		}
		for i, b := range batch {
			l := &Line{ID: b.key, Target: b.target, State: store.TargetUnchecked}
			if checks != nil && checks[i] != nil {
				fill(l, checks[i])
			}
			if chosen(l, f) {
				if err := fn(l); err != nil {
					return err
				}
			}
		}
		batch = batch[:0]
		return nil
	}
	err := EachIdentifier(ctx, tables, st, f.Prefix, func(key, target string) error {
		batch = append(batch, id{key, target})
		if len(batch) == reportBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// fill sets what c found in l.
func fill(l *Line, c *store.TargetCheck) {
	l.State, l.Code, l.Failures = c.State, c.Code, c.Failures
	if !c.Checked.IsZero() {
		checked, since := c.Checked.UTC(), c.Since.UTC()
		l.Checked, l.Since = &checked, &since
	}
	if c.Final != "" && c.Final != c.Target {
		l.Final = c.Final
	}
}

// chosen reports whether f chooses l.
func chosen(l *Line, f Filter) bool {
	if f.State != "" && l.State != f.State {
		return false
	}
	return f.Since.IsZero() || l.Since != nil && !l.Since.Before(f.Since)
}

// Lookup returns what the checks of target found, for one identifier's
// ?info: nil when the store keeps no checks or has none of target.
func Lookup(ctx context.Context, st store.Store, target string) (*store.TargetCheck, error) {
	if st == nil {
		return nil, nil
	}
	cs, err := st.LookupTargetChecks(ctx, []string{target})
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}
