package stats

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/store"
	"go.uber.org/zap"
)

// queueSize is how many answers wait to be counted: when the counting
// goroutine falls this far behind, answers are not counted (Dropped).
const queueSize = 8192

// The counting goroutine counts what is queued every countEvery, or as
// soon as the queue holds kickAt answers. Between, the request path never
// wakes it: a send on a channel that nobody waits on costs no scheduling.
const (
	countEvery = 100 * time.Millisecond
	kickAt     = queueSize / 4
)

// closeTimeout bounds the last flush when a collector is closed.
const closeTimeout = 10 * time.Second

// Options is what a collector needs besides its configuration.
type Options struct {
	// Where the counts are kept.
	Store store.StatsStore

	// Reports whether naan (normalized) is one of the site's NAANs.
	Ours func(naan string) bool

	// The shoulders the site defines ("ark:12345/x5": minters', policies'),
	// under which a name of the site's that resolves to nothing counts.
	Shoulders []string

	Logger *zap.Logger

	// The clock and the flush interval, for tests; zero: the real clock
	// and the configuration's interval.
	now           func() time.Time
	flushInterval time.Duration
}

// Collector counts a site's answers in memory and adds the counts to the
// store at most once a flush interval. Observe is all the request path
// does: one non-blocking send on a buffered channel, which a goroutine of
// the collector reads and counts, a batch at a time.
type Collector struct {
	store     store.StatsStore
	ours      func(naan string) bool
	shoulders []string
	logger    *zap.Logger
	now       func() time.Time
	cfg       Config
	top       int // as configured, or the default
	notFound  int

	queue   chan event
	kick    chan struct{} // wakes the counting goroutine (buffered, 1)
	queued  atomic.Uint64 // answers given to the queue or dropped
	dropped atomic.Uint64 // answers not counted: the queue was full

	mu      sync.Mutex
	cur     *window // what was counted since the last flush
	counted uint64  // answers counted, by the goroutine or a report

	day              string // today, as today last found it, under mu
	dayStart, dayEnd time.Time

	// Held for writing while the counts not written yet (pending) are
	// written, so that a report, which reads the store and pending under
	// it, counts them once: in the store or in pending.
	flushMu     sync.RWMutex
	pending     *tally
	lastDrop    string // the day old statistics were last dropped, under flushMu
	loggedDrops uint64 // the answers dropped that were logged, under flushMu

	stop    chan struct{} // closed by Close
	stopped chan struct{} // closed when run has returned
	flushed chan struct{} // closed when flushEvery has returned
	closed  atomic.Bool
}

// New starts a collector for cfg, which must be valid.
func New(cfg Config, o Options) *Collector {
	c := &Collector{
		store: o.Store, ours: o.Ours, shoulders: o.Shoulders, logger: o.Logger, now: o.now, cfg: cfg,
		top: cfg.top(), notFound: cfg.notFound(),
		queue: make(chan event, queueSize), kick: make(chan struct{}, 1), cur: newWindow(), pending: newTally(),
		stop: make(chan struct{}), stopped: make(chan struct{}), flushed: make(chan struct{}),
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.logger == nil {
		c.logger = zap.NewNop()
	}
	interval := o.flushInterval
	if interval == 0 {
		interval = cfg.flushInterval()
	}
	go c.run()
	go c.flushEvery(interval)
	return c
}

// Observe counts an answer: res is what the request resolved to, out the
// outcome of the answer given. It never blocks: when the queue is full
// the answer is not counted, and Dropped says how many were not.
func (c *Collector) Observe(res *resolve.Resolution, out resolve.Outcome) {
	c.queued.Add(1)
	select {
	case c.queue <- event{res, out}:
		if len(c.queue) >= kickAt {
			select {
			case c.kick <- struct{}{}:
			default:
			}
		}
	default:
		c.dropped.Add(1)
	}
}

// Dropped returns how many answers were not counted since the collector
// started, because the queue was full.
func (c *Collector) Dropped() uint64 { return c.dropped.Load() }

// run counts the queue's answers, a batch at a time, until Close.
func (c *Collector) run() {
	defer close(c.stopped)
	ticker := time.NewTicker(countEvery)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
		case <-c.kick:
		case <-c.stop:
			return
		}
		c.mu.Lock()
		c.catchUp()
		c.mu.Unlock()
	}
}

// flushEvery drops what is older than the retention, then flushes every
// interval until Close. It is a goroutine of its own: a slow store never
// holds up the counting.
func (c *Collector) flushEvery(interval time.Duration) {
	defer close(c.flushed)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	c.flushMu.Lock()
	c.dropOld(context.Background())
	c.flushMu.Unlock()
	for {
		select {
		case <-ticker.C:
			c.flush(context.Background())
		case <-c.stop:
			return
		}
	}
}

// today returns the day of now, in UTC, under c.mu.
func (c *Collector) today() string {
	now := c.now()
	if now.Before(c.dayStart) || !now.Before(c.dayEnd) {
		u := now.UTC()
		c.dayStart = time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
		c.dayEnd = c.dayStart.AddDate(0, 0, 1)
		c.day = c.dayStart.Format(dayLayout)
	}
	return c.day
}

// catchUp counts what the queue holds now, under c.mu.
func (c *Collector) catchUp() {
	day := c.today()
	for n := len(c.queue); n > 0; n-- {
		select {
		case ev := <-c.queue:
			c.count(c.cur, day, ev)
			c.counted++
		default:
			return
		}
	}
}

// settle counts what is queued and waits, a little at most, for the
// answers being queued, under c.mu: every answer observed before settle
// began is then in c.cur.
func (c *Collector) settle() {
	for deadline := time.Now().Add(100 * time.Millisecond); ; {
		c.catchUp()
		// Each answer adds to queued before it is counted or dropped:
		// when the counted and the dropped make up all that was queued
		// when they were read, nothing is in flight.
		if c.counted+c.dropped.Load() >= c.queued.Load() || time.Now().After(deadline) {
			return
		}
		c.mu.Unlock()
		runtime.Gosched()
		c.mu.Lock()
	}
}

// flush adds what was counted and not written yet to the store, then
// drops the days older than the retention, once a day. What cannot be
// written is kept for the next flush.
func (c *Collector) flush(ctx context.Context) error {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	c.mu.Lock()
	c.settle()
	w := c.cur
	c.cur = newWindow()
	c.mu.Unlock()
	c.pending.addTally(w.tally())
	trim(c.pending.top, c.top*sketchFactor)
	trim(c.pending.notFound, c.notFound*sketchFactor)
	if dropped := c.dropped.Load(); dropped > c.loggedDrops {
		c.logger.Warn("stats: answers not counted: the counting fell behind", zap.Uint64("answers", dropped-c.loggedDrops))
		c.loggedDrops = dropped
	}
	if !c.pending.empty() {
		if err := c.store.AddStats(ctx, c.pending.stats(), store.StatsKeep{Top: c.top, NotFound: c.notFound}); err != nil {
			c.logger.Error("stats: the counts could not be written to the store; they are kept for the next try", zap.Error(err))
			return err
		}
		c.pending = newTally()
	}
	return c.dropOld(ctx)
}

// dropOld drops the days older than the retention, unless it did today,
// under flushMu.
func (c *Collector) dropOld(ctx context.Context) error {
	c.mu.Lock()
	today := c.today()
	c.mu.Unlock()
	if c.lastDrop == today {
		return nil
	}
	if err := c.store.DropStats(ctx, c.cfg.oldestDay(c.now())); err != nil {
		c.logger.Error("stats: statistics older than the retention could not be dropped; trying again at the next flush", zap.Error(err))
		return err
	}
	c.lastDrop = today
	return nil
}

// Close stops counting and writes what was counted, waiting for the store
// a few seconds at most, and for the reports under way. What it cannot
// write is lost, and logged so. Answers observed after Close are not
// counted, and reports asked for after it are refused: the store may be
// gone.
func (c *Collector) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	close(c.stop)
	<-c.stopped
	<-c.flushed
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := c.flush(ctx)
	if err != nil && !c.pending.empty() {
		c.logger.Error("stats: counts lost: the store could not be written when the configuration was unloaded", zap.Error(err))
	}
	return err
}
