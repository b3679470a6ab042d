package console

import (
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

// forgetAfter is how long after its last failure a client's count is kept.
const forgetAfter = time.Hour

// maxClients bounds the clients whose failures are counted one by one;
// past it, the new ones share one count.
const maxClients = 10000

// throttle slows down sign-ins from clients that keep giving wrong keys:
// after freeFailures failures, the next attempt is refused unchecked
// until a wait has passed.
type throttle struct {
	mu  sync.Mutex
	now func() time.Time
	by  map[string]*failures
}

// failures is what a client has failed.
type failures struct {
	n     int
	last  time.Time
	until time.Time // no attempt is checked before it
}

func newThrottle() *throttle {
	return &throttle{now: time.Now, by: map[string]*failures{}}
}

// wait returns how long client must still wait before a sign-in of its
// is checked; 0 when it need not.
func (t *throttle) wait(client string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.by[client]
	if !ok {
		return 0
	}
	return max(f.until.Sub(t.now()), 0)
}

// failed counts a failed sign-in of client.
func (t *throttle) failed(client string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	f, ok := t.by[client]
	if !ok {
		if len(t.by) >= maxClients {
			t.forget(now)
		}
		if len(t.by) >= maxClients {
			client = ""
		}
		if f, ok = t.by[client]; !ok {
			f = &failures{}
			t.by[client] = f
		}
	}
	f.n++
	f.last = now
	if f.n >= freeFailures {
		wait := firstWait << min(f.n-freeFailures, 6)
		f.until = now.Add(min(wait, longestWait))
	}
}

// succeeded forgets client's failures.
func (t *throttle) succeeded(client string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.by, client)
}

// forget drops the clients whose last failure is older than forgetAfter.
func (t *throttle) forget(now time.Time) {
	for c, f := range t.by {
		if now.Sub(f.last) > forgetAfter {
			delete(t.by, c)
		}
	}
}

// clientOf returns what a client's failures are counted by: its address
// as Caddy determined it (behind trusted proxies, the client's), an IPv6
// address by its /64, which one subscriber usually holds whole.
func clientOf(r *http.Request) string {
	s, _ := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string)
	if s == "" {
		s, _, _ = net.SplitHostPort(r.RemoteAddr)
	}
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return s
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
