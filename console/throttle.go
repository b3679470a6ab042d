package console

import (
	"hash/maphash"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// The failed sign-ins allowed from one client before it must wait, the
// first wait, which doubles with each further failure, and the longest.
const (
	freeFailures = 3
	firstWait    = time.Second
	longestWait  = time.Minute
)

// freeBlockFailures is the failed sign-ins allowed from the clients of one
// block of addresses together (an IPv4 /24, an IPv6 /48) before all of
// them must wait: one who holds many addresses of a block gets no more
// tries than a few clients would.
const freeBlockFailures = 30

// forgetAfter is how long after its last failure a count is kept.
const forgetAfter = time.Hour

// maxCounts bounds the clients and blocks whose failures are counted one
// by one. Past it, the failures of those that have no count of their own
// share one of overflowCounts counts, the overflow, chosen by their block
// (or address) through a hash with a seed of the process's: a full table
// makes signing in stricter, never looser, and a few failures from one
// block slow down the new clients of the blocks that share its count, not
// every new client.
const (
	maxCounts      = 10000
	overflowCounts = 1024
)

// throttle slows down sign-ins from clients that keep giving wrong keys:
// after freeFailures failures of a client, or freeBlockFailures of its
// block, the next attempt is refused unchecked until a wait has passed.
type throttle struct {
	mu       sync.Mutex
	now      func() time.Time
	by       map[string]*failures     // by client address and by block
	overflow [overflowCounts]failures // of those that found the table full
	seed     maphash.Seed             // of the overflow's hash
	sweepAt  time.Time                // no count can be forgotten before it
}

// failures is what a client, a block or the overflow has failed.
type failures struct {
	n     int
	last  time.Time
	until time.Time // no attempt is checked before it
}

// client is who signs in, as the throttle counts it.
type client struct {
	addr  string // its address; an IPv6 address by its /64
	block string // the block of addresses it is in; "" when not an IP address
}

func newThrottle() *throttle {
	return &throttle{now: time.Now, by: map[string]*failures{}, seed: maphash.MakeSeed()}
}

// overflowOf returns the overflow's count that c shares once the table is
// full: its block's, or its address's when it has none.
func (t *throttle) overflowOf(c client) *failures {
	key := c.block
	if key == "" {
		key = c.addr
	}
	return &t.overflow[maphash.String(t.seed, key)%overflowCounts]
}

// wait returns how long c must still wait before a sign-in of its is
// checked; 0 when it need not: the longest of its own wait, its block's,
// and, when it has no count of its own, its overflow count's.
func (t *throttle) wait(c client) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	own, tracked := t.by[c.addr]
	wait := own.wait(now)
	if c.block != "" {
		wait = max(wait, t.by[c.block].wait(now))
	}
	if !tracked {
		wait = max(wait, t.overflowOf(c).wait(now))
	}
	return wait
}

// failed counts a failed sign-in of c: as its own and as its block's, or,
// for whichever finds the table full, as its overflow count's.
func (t *throttle) failed(c client) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	full := false
	if f := t.count(c.addr, now); f != nil {
		f.add(now, freeFailures)
	} else {
		full = true
	}
	if c.block != "" {
		if f := t.count(c.block, now); f != nil {
			f.add(now, freeBlockFailures)
		} else {
			full = true
		}
	}
	if full {
		t.overflowOf(c).add(now, freeFailures)
	}
}

// count returns the count of key, new if need be; nil when the table is
// full even after forgetting the old counts.
func (t *throttle) count(key string, now time.Time) *failures {
	if f, ok := t.by[key]; ok {
		return f
	}
	if len(t.by) >= maxCounts && !now.Before(t.sweepAt) {
		t.forget(now)
	}
	if len(t.by) >= maxCounts {
		return nil
	}
	f := &failures{}
	t.by[key] = f
	return f
}

// succeeded forgets c's own failures; its block's and the overflow's
// stay, since others may have made them.
func (t *throttle) succeeded(c client) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.by, c.addr)
}

// forget drops the counts whose last failure is older than forgetAfter,
// and notes when the oldest left can be: a full table is swept then, not
// with every failure that finds it full.
func (t *throttle) forget(now time.Time) {
	oldest := now
	for c, f := range t.by {
		switch {
		case now.Sub(f.last) > forgetAfter:
			delete(t.by, c)
		case f.last.Before(oldest):
			oldest = f.last
		}
	}
	t.sweepAt = oldest.Add(forgetAfter)
	for i := range t.overflow {
		if now.Sub(t.overflow[i].last) > forgetAfter {
			t.overflow[i] = failures{}
		}
	}
}

// add counts a failure at now, which, past free failures, must be waited
// for: firstWait, doubling with each further failure up to longestWait.
func (f *failures) add(now time.Time, free int) {
	f.n++
	f.last = now
	if f.n >= free {
		wait := firstWait << min(f.n-free, 6)
		f.until = now.Add(min(wait, longestWait))
	}
}

// wait returns how long after now an attempt must wait; 0 for a nil f.
func (f *failures) wait(now time.Time) time.Duration {
	if f == nil {
		return 0
	}
	return max(f.until.Sub(now), 0)
}

// clientOf returns who r is to the throttle: its address as Caddy
// determined it (behind trusted proxies, the client's), an IPv6 address
// by its /64, which one subscriber usually holds whole; and its block, an
// IPv4 address's /24, an IPv6 address's /48, which one holder often has
// whole.
func clientOf(r *http.Request) client {
	s, _ := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string)
	if s == "" {
		s, _, _ = net.SplitHostPort(r.RemoteAddr)
	}
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return client{addr: s}
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p64, _ := ip.Prefix(64)
		p48, _ := ip.Prefix(48)
		return client{addr: p64.String(), block: p48.String()}
	}
	p24, _ := ip.Prefix(24)
	return client{addr: ip.String(), block: p24.String()}
}
