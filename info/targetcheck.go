package info

import (
	"strconv"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
)

// TargetCheck is what the checks of an identifier's target found, as
// ?info shows it (docs/targets.md).
type TargetCheck struct {
	// The state: unchecked, ok, failing, broken, suspect or unverifiable.
	State store.TargetState `json:"state"`
	// The last check's HTTP status ("404") or what failed ("timeout").
	Code string `json:"code,omitempty"`
	// Failed checks in a row.
	Failures int `json:"failures,omitempty"`
	// When it was last checked, and when its state began.
	Checked time.Time `json:"checked,omitzero"`
	Since   time.Time `json:"since,omitzero"`
	// Where the last check ended after redirects, when not at the target.
	Final string `json:"final,omitempty"`
}

// SetTargetCheck adds what the checks of rec's target found: c, or
// unchecked when c is nil.
func (rec *Record) SetTargetCheck(c *store.TargetCheck) {
	tc := &TargetCheck{State: store.TargetUnchecked}
	if c != nil {
		tc = &TargetCheck{State: c.State, Code: c.Code, Failures: c.Failures, Checked: c.Checked.UTC(), Since: c.Since.UTC()}
		if c.Final != c.Target {
			tc.Final = c.Final
		}
		if tc.Checked.IsZero() {
			tc.Since = time.Time{}
		}
	}
	rec.TargetCheck = tc
}

// targetCheckElements are the details of rec's target check.
func (rec *Record) targetCheckElements() []element {
	c := rec.TargetCheck
	if c == nil {
		return nil
	}
	out := []element{{Name: "target-state", Value: string(c.State)}}
	add := func(name, value, link string) {
		if value != "" {
			out = append(out, element{Name: name, Value: value, Link: link})
		}
	}
	add("target-code", c.Code, "")
	if c.Failures > 0 {
		add("target-failures", strconv.Itoa(c.Failures), "")
	}
	if !c.Checked.IsZero() {
		add("target-checked", c.Checked.Format(time.RFC3339), "")
		add("target-since", c.Since.Format(time.RFC3339), "")
	}
	add("target-final", c.Final, httpURL(c.Final))
	return out
}
