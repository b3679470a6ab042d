package store

import (
	"context"
	"strings"
	"unicode/utf8"
)

// Lister is a store that lists its bindings by key range, state and text,
// in key order, without reading what does not match more than it must:
// the API's GET ids, a page at a time. Both backends implement it.
type Lister interface {
	// List calls fn with every binding that q matches, in key order,
	// until fn returns an error, which List then returns, or the matches
	// end. A backend reads ahead at most q.Want matches at a time and
	// holds no transaction or connection while fn runs. A query for a
	// state uses an index; a query for text may read every binding of the
	// range, and calls fn as it finds matches.
	List(ctx context.Context, q ListQuery, fn func(*Binding) error) error
}

// ListQuery selects bindings for Lister.List. The zero value selects them
// all.
type ListQuery struct {
	// Keys that start with Prefix, byte for byte ("" for all).
	Prefix string

	// Keys after After in key order ("" to start at the first).
	After string

	// Bindings in this state (StateAny for all).
	State State

	// Bindings whose target, or one of whose metadata values, contains
	// Text, ignoring case ("" for all). See Matches.
	Text string

	// How many matches the caller expects to take; a backend reads that
	// many ahead at a time, at least one. 0 means EachBatchCount.
	Want int
}

// State is what a binding is: bound, withdrawn, or minted and not bound.
type State string

// The states of a binding; StateAny matches every binding.
const (
	StateAny       State = ""
	StateBound     State = "bound"     // a target and status 200, 302, 303 or 307
	StateWithdrawn State = "withdrawn" // status 410
	StateMinted    State = "minted"    // status 0: minted, not bound yet
)

// State returns what b is: minted (status 0), withdrawn (410) or bound.
// Everything that asks whether a binding is minted, withdrawn or bound
// asks this.
func (b *Binding) State() State {
	switch b.Status {
	case 0:
		return StateMinted
	case 410:
		return StateWithdrawn
	}
	return StateBound
}

// ParseState reads the name of a state: bound, withdrawn, minted, or ""
// for any.
func ParseState(s string) (State, bool) {
	switch st := State(s); st {
	case StateAny, StateBound, StateWithdrawn, StateMinted:
		return st, true
	}
	return StateAny, false
}

// Matches reports whether q selects b: the definition every Lister keeps.
func (q *ListQuery) Matches(b *Binding) bool {
	if !strings.HasPrefix(b.Key, q.Prefix) || b.Key <= q.After || (q.State != StateAny && b.State() != q.State) {
		return false
	}
	return q.Text == "" || ContainsText(b, q.Text)
}

// ContainsText reports whether the target of b, or one of its metadata
// values, contains text, ignoring case (simple Unicode case folding of
// both sides, as strings.ToLower does).
func ContainsText(b *Binding, text string) bool {
	text = strings.ToLower(text)
	if strings.Contains(strings.ToLower(b.Target), text) {
		return true
	}
	for _, v := range b.Meta {
		if strings.Contains(strings.ToLower(v), text) {
			return true
		}
	}
	return false
}

// PrefixEnd returns the least string greater than every string that
// starts with prefix, and false when there is none (prefix is empty, or
// all U+10FFFF): with it, the keys that start with prefix are exactly
// those in [prefix, end) in the byte order that stores sort keys in, and
// a backend can ask an index for that range. For UTF-8 the end is UTF-8
// too, as a PostgreSQL text parameter must be.
func PrefixEnd(prefix string) (string, bool) {
	for prefix != "" {
		r, size := utf8.DecodeLastRuneInString(prefix)
		last := prefix[len(prefix)-1]
		prefix = prefix[:len(prefix)-size]
		switch {
		case r == utf8.RuneError && size == 1:
			// Not UTF-8: the next byte value, if there is one.
			if c := last; c < 0xff {
				return prefix + string([]byte{c + 1}), true
			}
		case r == utf8.MaxRune:
		case r == 0xD7FF:
			return prefix + string(rune(0xE000)), true // past the surrogates, which UTF-8 does not encode
		default:
			return prefix + string(r+1), true
		}
	}
	return "", false
}
