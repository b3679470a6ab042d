package store

import (
	"context"
	"time"
)

// TargetChecks is a store that keeps what package targets found when it
// checked the site's targets: one record per distinct target, with the
// time its next check is due. Both backends implement it; with
// PostgreSQL the records are shared by every node, and a lease lets one
// node check at a time.
//
// The distinct targets are found without holding them in memory: a sweep
// (BeginTargetSweep, MarkTargets with every target in use, EndTargetSweep)
// adds the new targets, which the store itself deduplicates, and forgets
// those no longer in use.
type TargetChecks interface {
	// BeginTargetSweep starts a sweep and returns its number, larger
	// than every number returned before.
	BeginTargetSweep(ctx context.Context) (uint64, error)

	// MarkTargets records that the targets of refs are in use, as of
	// sweep. A target the store does not hold is added unchecked, due at
	// its ref's Due. A target it holds keeps its check, and takes the Key
	// of the first ref of this sweep naming it; it is paused when every
	// ref of this sweep naming it is Paused. A target may be named any
	// number of times: only the first ref of a sweep, and those that
	// resume a paused target, write anything.
	MarkTargets(ctx context.Context, sweep uint64, refs []TargetRef) error

	// EndTargetSweep forgets the targets that no MarkTargets of sweep,
	// or of a later sweep, has named, and returns how many.
	EndTargetSweep(ctx context.Context, sweep uint64) (int, error)

	// DueTargets returns up to n targets whose check is due at now or
	// before, earliest first. Paused targets are never due.
	DueTargets(ctx context.Context, now time.Time, n int) ([]*TargetCheck, error)

	// PutTargetChecks stores the results of checks: every field but Key
	// and Paused, which MarkTargets keeps, and Notified once set, which
	// stays set while the state and Since do: a result judged before the
	// notification does not undo it. A target the store does not hold
	// (forgotten by a sweep meanwhile) is left out.
	PutTargetChecks(ctx context.Context, checks []*TargetCheck) error

	// SetTargetsDue makes the targets of refs that the store holds due at
	// their ref's Due (their Key and Paused are not used), changing
	// nothing else: a check on demand does not undo a result written
	// meanwhile.
	SetTargetsDue(ctx context.Context, refs []TargetRef) error

	// LookupTargetChecks returns the checks of targets, in the same
	// order, nil where the store holds none.
	LookupTargetChecks(ctx context.Context, targets []string) ([]*TargetCheck, error)

	// EachTargetCheck calls fn with every check, in target order, until
	// fn returns an error, which it returns. Like Each, it holds no
	// transaction while fn runs.
	EachTargetCheck(ctx context.Context, fn func(*TargetCheck) error) error

	// SharedFinal returns how many targets other than target last ended
	// at final after their redirects, counting up to limit at most.
	SharedFinal(ctx context.Context, final, target string, limit int) (int, error)

	// TargetStates returns how many targets are in each state.
	TargetStates(ctx context.Context) (map[TargetState]int, error)

	// LeaseTargets takes or renews the right to check targets for ttl,
	// for holder, and reports whether holder has it: false while another
	// holder's lease runs. With a shared store, one node checks at a
	// time.
	LeaseTargets(ctx context.Context, holder string, ttl time.Duration) (bool, error)

	// ReleaseTargets gives up holder's lease, if it holds it, so that
	// another may take it at once.
	ReleaseTargets(ctx context.Context, holder string) error
}

// TargetRef is a target in use, for MarkTargets.
type TargetRef struct {
	Target string    // the target: an absolute URL, or a path on the site
	Key    string    // an identifier that has it
	Due    time.Time // when a new target is first due
	Paused bool      // whether it is not to be checked (a skipped origin or shoulder)
}

// TargetState is what the checks of a target found so far.
type TargetState string

// The states of a target.
const (
	TargetUnchecked    TargetState = "unchecked"    // never checked yet
	TargetOK           TargetState = "ok"           // answered
	TargetFailing      TargetState = "failing"      // failed, fewer times in a row than counts as broken
	TargetBroken       TargetState = "broken"       // failed often enough in a row
	TargetSuspect      TargetState = "suspect"      // answers, but no longer with its own page
	TargetUnverifiable TargetState = "unverifiable" // a login or bot wall, or an address not checked
)

// TargetStates lists the states, in the order reports show them.
var AllTargetStates = []TargetState{TargetUnchecked, TargetOK, TargetFailing, TargetBroken, TargetSuspect, TargetUnverifiable}

// TargetCheck is what a store keeps about one distinct target.
type TargetCheck struct {
	// The target, as the identifiers that have it spell it.
	Target string `json:"target"`

	// An identifier that has it (the last sweep's): in-place targets are
	// checked by asking the site for it.
	Key string `json:"key,omitempty"`

	// Whether it is not checked (see TargetRef).
	Paused bool `json:"paused,omitempty"`

	State TargetState `json:"state"`

	// The last check's answer: its HTTP status ("404") or what failed
	// ("timeout", "dns", "refused", …); "" before the first.
	Code string `json:"code,omitempty"`

	// Failed checks in a row.
	Failures int `json:"failures,omitempty"`

	// When it was last checked, and when its state began; zero before
	// the first check.
	Checked time.Time `json:"checked,omitzero"`
	Since   time.Time `json:"since,omitzero"`

	// The URL the last check ended at, after redirects.
	Final string `json:"final,omitempty"`

	// Its own page: the final URL of its first answer that was not an
	// origin's front page nor a page many targets end at, kept from then
	// on, so that a migration sending it elsewhere shows.
	Page string `json:"page,omitempty"`

	// Whether its becoming broken has been notified.
	Notified bool `json:"notified,omitempty"`

	// When it is next checked.
	Due time.Time `json:"due"`
}
