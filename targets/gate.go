package targets

import (
	"context"
	"sync"
	"time"
)

// gates keeps the checks polite: one request at a time per origin, the
// next starting at least an interval after the last one ended (so that
// the origin sees them arrive at least that far apart, however long
// each took), and none before a time an origin asked for (Retry-After).
type gates struct {
	interval time.Duration

	mu sync.Mutex
	by map[string]*gate // by origin
}

// gate is one origin's turn: a token held by the request under way.
type gate struct {
	turn  chan struct{} // holds the token while no request runs
	next  time.Time     // the earliest start of the next request; under gates.mu
	users int           // requests waiting or running; under gates.mu
	took  time.Duration // how long its last request took; under gates.mu
}

func newGates(interval time.Duration) *gates {
	return &gates{interval: interval, by: map[string]*gate{}}
}

// enter waits for origin's turn, and returns the function that ends it
// once the answer is read; it fails only when ctx is done first.
func (g *gates) enter(ctx context.Context, origin string) (func(), error) {
	g.mu.Lock()
	gt := g.by[origin]
	if gt == nil {
		gt = &gate{turn: make(chan struct{}, 1)}
		gt.turn <- struct{}{}
		g.by[origin] = gt
	}
	gt.users++
	g.mu.Unlock()
	leave := func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if gt.users--; gt.users > 0 {
			return
		}
		// Forget the origin once nothing is left to remember: its next
		// request may start at once.
		time.AfterFunc(time.Until(gt.next), func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			if gt.users == 0 && g.by[origin] == gt && !time.Now().Before(gt.next) {
				delete(g.by, origin)
			}
		})
	}
	select {
	case <-gt.turn:
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
	for {
		g.mu.Lock()
		wait := time.Until(gt.next)
		g.mu.Unlock()
		if wait <= 0 {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			gt.turn <- struct{}{}
			leave()
			return nil, ctx.Err()
		}
	}
	start := time.Now()
	return func() {
		g.mu.Lock()
		end := time.Now()
		gt.took = end.Sub(start)
		if next := end.Add(g.interval); next.After(gt.next) {
			gt.next = next
		}
		g.mu.Unlock()
		gt.turn <- struct{}{}
		leave()
	}, nil
}

// pause makes origin wait until until before its next request, as its
// Retry-After asked.
func (g *gates) pause(origin string, until time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gt := g.by[origin]
	if gt == nil {
		gt = &gate{turn: make(chan struct{}, 1)}
		gt.turn <- struct{}{}
		g.by[origin] = gt
	}
	if until.After(gt.next) {
		gt.next = until
	}
}

// pace returns how much of origin's time one request takes: the interval
// and its last request's duration.
func (g *gates) pace(origin string) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if gt := g.by[origin]; gt != nil {
		return g.interval + gt.took
	}
	return g.interval
}

// busyUntil returns when origin may take its next request.
func (g *gates) busyUntil(origin string) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	if gt := g.by[origin]; gt != nil {
		return gt.next
	}
	return time.Time{}
}
