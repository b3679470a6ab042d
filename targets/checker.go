package targets

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/urlpath"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
	"go.uber.org/zap"
	"golang.org/x/time/rate"
)

// Site is a site whose targets are checked: what the handler gives the
// checker.
type Site interface {
	// Table returns the site's current table; nil while it has none.
	Table() table.Table

	// ServeHTTP answers a request as the site answers its clients: a
	// check asks it for the identifiers of in-place targets (IsCheck
	// tells such requests).
	ServeHTTP(w http.ResponseWriter, r *http.Request)

	// Host returns the host that requests to the site name.
	Host() string
}

// The checker's pace.
const (
	leaseTTL      = 30 * time.Second // how long a lease runs unless renewed
	leaseRenew    = 10 * time.Second // how often the holder renews it, and others try to take it
	maxQueued     = 10000            // the most targets taken from the store and not checked yet
	queuedFor     = time.Minute      // and at most this long of max_rate's checks
	takeShare     = 4                // due targets read (and written back) a second, for each check max_rate allows
	maxRunning    = 64               // the most requests under way at once, once their turn has come
	fetchBatch    = 1000             // the most due targets read at once
	writeBatch    = 500              // the most results written at once
	writeEvery    = 200 * time.Millisecond
	claimFor      = time.Hour              // how long a target taken for checking waits before it is taken again, should this process stop
	originLookout = 500 * time.Millisecond // an origin's queue holds about this much of its time
	markBatch     = 1000
	gaugeEvery    = 30 * time.Second
)

// Checker checks the targets of one store's sites: one checker per store
// and configuration in a process, and one checking process per store at a
// time (the store's lease). It is safe for concurrent use.
type Checker struct {
	set    *settings
	st     store.Store
	tc     store.TargetChecks
	holder string
	logger *zap.Logger
	gates  *gates
	rate   *rate.Limiter // max_rate
	takes  *rate.Limiter // takeShare times max_rate: due targets read, and written back taken or deferred
	fetch  *fetcher

	// storeMu orders take's reading of due targets and writing of claims
	// with the writing of results: a target is read either before its
	// result is written, while it is in flight, or after.
	storeMu sync.Mutex

	mu        sync.Mutex
	sites     []Site
	queues    map[string]*originQueue // by origin: the targets taken and not checked yet
	flight    *inflight               // the targets taken whose results are not written yet
	slots     map[string]time.Time    // by origin: the latest time a target was deferred to
	queued    int
	lastSweep uint64
	sweepWant bool
	marks     []string // store keys changed, whose targets are to be marked

	held    bool      // whether the checker holds the lease; the loop's own
	renewed time.Time // when it last tried to take or renew it; the loop's own

	wake    chan struct{}
	results chan checked
	stop    context.CancelFunc
	done    chan struct{}
}

// originQueue is the targets of one origin waiting for their check.
type originQueue struct {
	items   []*store.TargetCheck
	working bool
}

// checked is a result to write.
type checked struct {
	c      *store.TargetCheck
	result string
}

// New returns a checker of the targets of st's sites, configured by c;
// site names the site for the default User-Agent. It does nothing until
// Start.
func New(c *Config, st store.Store, site string, logger *zap.Logger) (*Checker, error) {
	set, err := c.settings(site)
	if err != nil {
		return nil, err
	}
	holder := make([]byte, 8)
	_, _ = rand.Read(holder)
	host, _ := os.Hostname()
	ch := &Checker{
		set: set, st: st, tc: st, logger: logger,
		holder:  fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(holder)),
		gates:   newGates(set.hostInterval),
		rate:    rate.NewLimiter(rate.Limit(set.maxRate), 1),
		takes:   rate.NewLimiter(rate.Limit(takeShare*set.maxRate), int(max(1, takeShare*set.maxRate))),
		queues:  map[string]*originQueue{},
		flight:  newInflight(),
		slots:   map[string]time.Time{},
		wake:    make(chan struct{}, 1),
		results: make(chan checked, writeBatch),
	}
	ch.fetch = newFetcher(set, ch.gates, ch.site)
	return ch, nil
}

// AddSite adds a site whose targets are checked; the next sweep finds
// them. The site added last answers the in-place checks.
func (ch *Checker) AddSite(s Site) {
	ch.mu.Lock()
	ch.sites = append(ch.sites, s)
	ch.sweepWant = true
	ch.mu.Unlock()
	ch.poke()
}

// RemoveSite removes a site added before.
func (ch *Checker) RemoveSite(s Site) {
	ch.mu.Lock()
	for i, x := range ch.sites {
		if x == s {
			ch.sites = append(ch.sites[:i:i], ch.sites[i+1:]...)
			break
		}
	}
	ch.mu.Unlock()
}

// TablesChanged tells the checker that a site's table changed: the next
// sweep finds the targets of the new one.
func (ch *Checker) TablesChanged() {
	ch.mu.Lock()
	ch.sweepWant = true
	ch.mu.Unlock()
	ch.poke()
}

// site returns the site that answers in-place checks.
func (ch *Checker) site() Site {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if len(ch.sites) == 0 {
		return nil
	}
	return ch.sites[len(ch.sites)-1]
}

// poke wakes the checker's loop.
func (ch *Checker) poke() {
	select {
	case ch.wake <- struct{}{}:
	default:
	}
}

// Start starts checking in the background, until Stop.
func (ch *Checker) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	ch.stop, ch.done = cancel, make(chan struct{})
	ch.st.Watch(ctx, ch.storeChanged)
	written := make(chan struct{})
	go func() { defer close(written); ch.writeResults() }()
	go func() {
		defer close(ch.done)
		ch.run(ctx) // returns once its workers have
		close(ch.results)
		<-written
	}()
}

// Stop stops checking: the checks under way end, their results are
// written, and the lease is given up for another to take at once.
func (ch *Checker) Stop() {
	if ch.stop == nil {
		return
	}
	ch.stop()
	<-ch.done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ch.tc.ReleaseTargets(ctx, ch.holder); err != nil {
		ch.logger.Warn("targets_check: could not give up the lease; another checker takes it when it runs out", zap.Error(err))
	}
}

// storeChanged hears of the store's changes: the targets of the changed
// keys are marked, or everything swept again when the store cannot say
// what changed.
func (ch *Checker) storeChanged(keys []string) {
	ch.mu.Lock()
	if keys == nil || len(ch.marks)+len(keys) > maxQueued {
		ch.sweepWant, ch.marks = true, nil
	} else {
		ch.marks = append(ch.marks, keys...)
	}
	ch.mu.Unlock()
	ch.poke()
}

// run is the checker's loop: while it holds the lease it sweeps when
// asked to and once a pass, takes the due targets and, once a pass,
// notifies; whether it holds the lease or not it shows the counts.
func (ch *Checker) run(ctx context.Context) {
	var workers sync.WaitGroup
	defer workers.Wait()
	var gauged, passStart time.Time
	tick := time.NewTicker(min(max(ch.set.hostInterval, 10*time.Millisecond), 250*time.Millisecond))
	defer tick.Stop()
	for {
		now := time.Now()
		if was := ch.held; ch.renew(ctx) && !was {
			ch.logger.Info("targets_check: this process checks the targets", zap.String("holder", ch.holder))
			passStart = now
			ch.want()
		}
		if ch.held {
			if now.Sub(passStart) >= ch.set.interval {
				ch.endPass(ctx, now)
				passStart = now
				ch.want()
			}
			ch.mu.Lock()
			sweep, marks := ch.sweepWant, ch.marks
			ch.sweepWant, ch.marks = false, nil
			ch.mu.Unlock()
			if sweep {
				if err := ch.sweep(ctx); err != nil && ctx.Err() == nil {
					ch.logger.Error("targets_check: the sweep of the targets failed; it is tried again", zap.Error(err))
					ch.want()
				}
			}
			if len(marks) > 0 {
				if err := ch.markKeys(ctx, marks); err != nil && ctx.Err() == nil {
					ch.logger.Warn("targets_check: the targets of changed identifiers were not marked; the next sweep finds them", zap.Error(err))
				}
			}
			if err := ch.take(ctx, &workers); err != nil && ctx.Err() == nil {
				ch.logger.Warn("targets_check: the store did not give the due targets", zap.Error(err))
			}
		}
		if now.Sub(gauged) >= min(gaugeEvery, ch.set.interval) {
			ch.showStates(ctx)
			gauged = now
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-ch.wake:
		}
	}
}

// want asks for a sweep.
func (ch *Checker) want() {
	ch.mu.Lock()
	ch.sweepWant = true
	ch.mu.Unlock()
}

// renew takes or renews the lease when it is time to, and reports
// whether the checker holds it. Only the loop calls it.
func (ch *Checker) renew(ctx context.Context) bool {
	if time.Since(ch.renewed) < min(leaseRenew, ch.set.interval) {
		return ch.held
	}
	ok, err := ch.tc.LeaseTargets(ctx, ch.holder, leaseTTL)
	if err != nil && ctx.Err() == nil {
		ch.logger.Warn("targets_check: the store did not answer for the lease", zap.Error(err))
	}
	if ch.held && !ok && ctx.Err() == nil {
		ch.logger.Warn("targets_check: the lease went to another checker", zap.String("holder", ch.holder))
	}
	ch.held, ch.renewed = ok, time.Now()
	return ok
}

// take reads due targets, at most takeShare times max_rate a second
// (scheduling costs writes to the store too, kept in proportion to the
// checks), and queues them by origin: one worker per origin checks them
// in turn. Each target taken is first given a later due
// time in the store, so that it is not taken again while it waits; one
// whose origin has a full queue waits in the store instead, until about
// when the origin will be free. A target still in flight, whose claim
// ran out before its check ended, has its claim renewed and is not
// queued again.
func (ch *Checker) take(ctx context.Context, workers *sync.WaitGroup) error {
	ch.storeMu.Lock()
	defer ch.storeMu.Unlock()
	ch.mu.Lock()
	room := min(maxQueued, max(100, int(ch.set.maxRate*queuedFor.Seconds()))) - ch.queued
	ch.mu.Unlock()
	now := time.Now()
	n := min(room, fetchBatch, int(ch.takes.TokensAt(now)))
	if n <= 0 {
		return nil
	}
	due, err := ch.tc.DueTargets(ctx, now, n)
	if err != nil || len(due) == 0 {
		return err
	}
	ch.takes.AllowN(now, len(due))
	perOrigin := max(2, int(originLookout/max(ch.set.hostInterval, time.Millisecond))+1)
	claims := make([]*store.TargetCheck, 0, len(due))
	claimDue := now.Add(min(claimFor, ch.set.interval))
	taken := map[string][]*store.TargetCheck{}
	var renewed []string
	ch.mu.Lock()
	for o, last := range ch.slots {
		if last.Before(now) {
			delete(ch.slots, o) // past: the origin's backlog is gone
		}
	}
	for _, c := range due {
		claim := *c
		claims = append(claims, &claim)
		if ch.flight.has(c.Target) {
			ch.flight.note(c)
			claim.Due = claimDue
			renewed = append(renewed, c.Target)
			continue
		}
		origin := urlpath.SiteHost
		if o, ok := originOf(c.Target); ok {
			origin = o
		}
		waiting := len(taken[origin])
		if q := ch.queues[origin]; q != nil {
			waiting += len(q.items)
		}
		if waiting >= perOrigin {
			claim.Due = ch.slot(origin, now, waiting)
			continue
		}
		claim.Due = claimDue
		ch.flight.add(c.Target, claimDue)
		taken[origin] = append(taken[origin], c)
	}
	ch.mu.Unlock()
	err = ch.tc.PutTargetChecks(ctx, claims)
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if err != nil {
		for _, cs := range taken {
			for _, c := range cs {
				ch.flight.end(c.Target)
			}
		}
		return err
	}
	for _, target := range renewed {
		ch.flight.add(target, claimDue)
	}
	for origin, cs := range taken {
		q := ch.queues[origin]
		if q == nil {
			q = &originQueue{}
			ch.queues[origin] = q
		}
		q.items = append(q.items, cs...)
		ch.queued += len(cs)
		if !q.working {
			q.working = true
			workers.Add(1)
			go func() { defer workers.Done(); ch.work(ctx, origin, q) }()
		}
	}
	return nil
}

// slot returns when a target of origin, whose queue holds waiting
// targets, can be checked: after the origin's queue and the targets
// deferred before it, each taking the origin's pace. Deferring a big
// origin's targets to successive times, rather than all to one, takes
// each of them from the store about once. The caller holds ch.mu.
func (ch *Checker) slot(origin string, now time.Time, waiting int) time.Time {
	pace := max(ch.gates.pace(origin), time.Millisecond)
	at := ch.gates.busyUntil(origin)
	if at.Before(now) {
		at = now
	}
	at = at.Add(time.Duration(waiting) * pace)
	if last := ch.slots[origin]; last.After(at) {
		at = last.Add(pace)
	}
	ch.slots[origin] = at
	return at
}

// work checks the targets queued for origin, one after the other.
func (ch *Checker) work(ctx context.Context, origin string, q *originQueue) {
	for {
		ch.mu.Lock()
		if len(q.items) == 0 || ctx.Err() != nil {
			ch.queued -= len(q.items)
			for _, c := range q.items {
				ch.flight.end(c.Target)
			}
			q.items, q.working = nil, false
			delete(ch.queues, origin)
			ch.mu.Unlock()
			return
		}
		c := q.items[0]
		q.items = q.items[1:]
		ch.queued--
		ch.mu.Unlock()
		if ch.rate.Wait(ctx) != nil {
			ch.giveUp(c)
			continue
		}
		o := ch.fetch.check(ctx, c.Target, c.Key)
		if ctx.Err() != nil {
			ch.giveUp(c) // stopped under way: the check is not one
			continue
		}
		if o.verdict == deferred {
			if origin, ok := originOf(o.final); ok {
				ch.gates.pause(origin, time.Now().Add(o.retry))
			}
		}
		next, result, err := ch.set.judge(ctx, c, o, time.Now(), func(ctx context.Context, final, target string) (int, error) {
			return ch.tc.SharedFinal(ctx, final, target, manyShare)
		})
		if err != nil {
			ch.logger.Warn("targets_check: a check could not be judged; it is made again later", zap.String("target", c.Target), zap.Error(err))
			ch.giveUp(c)
			continue
		}
		select {
		case ch.results <- checked{c: next, result: result}:
		case <-ctx.Done():
			ch.giveUp(c)
		}
	}
}

// giveUp ends the flight of c, whose check ends without a result to
// write (the checker stops, or the check could not be judged): it waits
// in the store for its claim to run out, even when it was asked for
// meanwhile.
func (ch *Checker) giveUp(c *store.TargetCheck) {
	ch.mu.Lock()
	ch.flight.end(c.Target)
	ch.mu.Unlock()
}

// writeResults writes the results of checks to the store, a batch at a
// time, and counts them, until results is closed. A target made due while
// in flight is written due at once.
func (ch *Checker) writeResults() {
	var batch []*store.TargetCheck
	flush := func() {
		if len(batch) == 0 {
			return
		}
		ch.storeMu.Lock()
		defer ch.storeMu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ch.noteAskedFor(ctx, batch)
		ch.mu.Lock()
		now := time.Now()
		for _, c := range batch {
			if ch.flight.end(c.Target) && c.Due.After(now) {
				c.Due = now
			}
		}
		ch.mu.Unlock()
		if err := ch.tc.PutTargetChecks(ctx, batch); err != nil {
			ch.logger.Warn("targets_check: results were not written; those targets are checked again", zap.Int("targets", len(batch)), zap.Error(err))
		}
		batch = batch[:0]
	}
	t := time.NewTicker(writeEvery)
	defer t.Stop()
	for {
		select {
		case r, ok := <-ch.results:
			if !ok {
				flush()
				return
			}
			checksTotal.WithLabelValues(r.result).Inc()
			batch = append(batch, r.c)
			if len(batch) >= writeBatch {
				flush()
			}
		case <-t.C:
			flush()
		}
	}
}

// noteAskedFor notes which of the targets of results were made due while
// in flight, as the store holds them now (take notes those it reads).
// The caller holds storeMu.
func (ch *Checker) noteAskedFor(ctx context.Context, results []*store.TargetCheck) {
	targets := make([]string, len(results))
	for i, c := range results {
		targets[i] = c.Target
	}
	held, err := ch.tc.LookupTargetChecks(ctx, targets)
	if err != nil {
		return // the check on demand waits for the claim to run out
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	for _, c := range held {
		if c != nil {
			ch.flight.note(c)
		}
	}
}

// showStates sets caddy_ark_targets from the store.
func (ch *Checker) showStates(ctx context.Context) {
	states, err := ch.tc.TargetStates(ctx)
	if err != nil {
		return
	}
	for _, s := range store.AllTargetStates {
		targetsGauge.WithLabelValues(string(s)).Set(float64(states[s]))
	}
}
