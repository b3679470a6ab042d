// Package breaker is a circuit breaker for a server that may stop
// answering: after a few failures in a row it opens, and calls fail at
// once instead of each waiting for its timeout; after a cooldown it
// half-opens and lets one call through to probe, which closes it again
// when the server answers. It imports nothing from this module.
package breaker

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// ErrOpen is the error of a call refused without being tried because the
// circuit is open (or half-open with its probe under way).
var ErrOpen = errors.New("circuit open: the server stopped answering, calls fail at once until a probe gets an answer")

// State is the state of a circuit.
type State int32

const (
	Closed   State = iota // calls go through
	HalfOpen              // one call probes; the others are refused
	Open                  // calls are refused until the cooldown ends
)

var stateNames = [...]string{"closed", "half-open", "open"}

func (s State) String() string { return stateNames[s] }

// Breaker is a circuit breaker. Callers ask Allow before a call and
// report its result with Success or Failure; a call that ended without
// saying anything about the server (its caller gave up) reports nothing.
// The zero value is not usable: make one with New. Its methods are safe
// for concurrent use, and Allow and Success cost one atomic load while
// the circuit is closed and nothing failed.
type Breaker struct {
	threshold int           // failures in a row that open the circuit
	cooldown  time.Duration // how long it stays open before a probe
	probe     time.Duration // how long a probe may take before another is let through
	onChange  func(State)   // called with each new state, under mu

	state    atomic.Int32 // a State
	failures atomic.Int32 // failures in a row while closed
	mu       sync.Mutex
	until    time.Time // Open: when to half-open; HalfOpen: when the probe counts as lost
}

// New returns a closed circuit that opens after threshold failures in a
// row, stays open for cooldown, and then lets one call probe, giving it
// probe to report before it lets another through. onChange, if not nil,
// is called with every new state, in order, under the circuit's lock: it
// must not call the Breaker.
func New(threshold int, cooldown, probe time.Duration, onChange func(State)) *Breaker {
	return &Breaker{threshold: max(1, threshold), cooldown: cooldown, probe: probe, onChange: onChange}
}

// State returns the circuit's state.
func (b *Breaker) State() State { return State(b.state.Load()) }

// Allow reports whether a call may be made now. When it is false the
// caller fails at once with ErrOpen. When the cooldown of an open circuit
// has ended it is true for one caller, the probe.
func (b *Breaker) Allow() bool {
	if State(b.state.Load()) == Closed {
		return true
	}
	b.mu.Lock()
	if s := State(b.state.Load()); s == Closed || time.Now().Before(b.until) {
		b.mu.Unlock()
		return s == Closed
	}
	// The cooldown is over, or the last probe never reported: probe.
	b.until = time.Now().Add(b.probe)
	b.set(HalfOpen)
	b.mu.Unlock()
	return true
}

// Success records that the server answered a call: the circuit closes.
func (b *Breaker) Success() {
	if State(b.state.Load()) == Closed && b.failures.Load() == 0 {
		return
	}
	b.mu.Lock()
	b.failures.Store(0)
	b.set(Closed)
	b.mu.Unlock()
}

// Failure records that the server did not answer a call (it timed out,
// or the connection failed). The threshold-th failure in a row opens a
// closed circuit; a failure while it is half-open opens it again for
// another cooldown. Failures of calls made before the circuit opened
// that end while it is open change nothing.
func (b *Breaker) Failure() {
	b.mu.Lock()
	switch State(b.state.Load()) {
	case Closed:
		if int(b.failures.Add(1)) < b.threshold {
			b.mu.Unlock()
			return
		}
	case Open:
		b.mu.Unlock()
		return
	}
	b.failures.Store(0)
	b.until = time.Now().Add(b.cooldown)
	b.set(Open)
	b.mu.Unlock()
}

// set stores s, under mu, and tells onChange when it is a change.
func (b *Breaker) set(s State) {
	if State(b.state.Swap(int32(s))) != s && b.onChange != nil {
		b.onChange(s)
	}
}
