package localcopy

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/metrics"
	"github.com/caddy-ark/caddy-ark/store"
	"go.uber.org/zap"
)

// pageSize is how many history records are read, written to the journal
// and synced at a time.
const pageSize = 1000

// follow opens the copy on disk, or builds one if there is none or it
// cannot be used. The copy serves once it has read the history to its
// end, so that it never answers older than the store did meanwhile; if
// that first read fails (no server answers), a copy from disk serves as
// it is, unless a write of this node returned before it had a journal
// (unapplied): then it waits for a read that succeeds. Then follow reads
// the history every o.Poll (after a failure, twice as long as the last
// pause, up to 5 s), or when woken (by a change, or a lapse of the
// store's Watch), until ctx is done, folding the journal into a new base
// once it holds o.CompactAfter records. Each round settles the lapse
// pending when it began, whether it read the history or no server
// answered.
func (c *Copy) follow(ctx context.Context, o Options) {
	pause := o.Poll
	var checked time.Time
	ahead := false // the last check found the store's history behind the copy
	fromDisk := c.openFromDisk(ctx)
	first := true
	defer func() {
		if first {
			close(c.opened)
		}
	}()
	for ctx.Err() == nil {
		lapse := c.unsure.Load() // settled by this round, which reads after it
		var err error
		if c.j == nil {
			err = c.build(ctx)
		}
		if err == nil {
			err = c.catchUp(ctx)
		}
		c.settle(lapse)
		if first {
			first = false
			if err != nil && fromDisk && !c.unapplied.Load() {
				c.serving.Store(true)
			}
			close(c.opened)
		}
		if err == nil && time.Since(checked) >= o.RestoreCheck {
			checked = time.Now()
			err = c.checkNotAhead(ctx, &ahead)
		}
		if err == nil && c.journalLen() >= o.CompactAfter {
			err = c.compact(ctx)
		}
		c.report(err)
		if err != nil && ctx.Err() == nil {
			pause = min(2*pause, 5*time.Second)
		} else {
			pause = o.Poll
		}
		select {
		case <-ctx.Done():
		case <-c.wake:
		case <-time.After(pause):
		}
	}
}

// checkNotAhead builds the copy again when it has applied history records
// that the store no longer has, on two checks in a row (ahead says the
// last found so): the store was restored from a backup older than the
// copy, and its sequence numbers will be given again to other changes. A
// server that is only behind (a standby catching up) is so for less than
// the time between two checks, and the copy is not built from it. The
// copy answers as it is until the new one is built.
func (c *Copy) checkNotAhead(ctx context.Context, ahead *bool) error {
	last, err := lastSeq(ctx, c.src)
	if err != nil {
		return err
	}
	seq := c.Seq()
	if last >= seq {
		*ahead = false
		return nil
	}
	if !*ahead {
		*ahead = true
		return nil
	}
	*ahead = false
	c.logger.Warn("local copy: the store's history ends before the copy's: the store was restored from an older backup; the copy is built again",
		zap.String("dir", c.dir), zap.Uint64("store_seq", last), zap.Uint64("copy_seq", seq))
	if err := c.build(ctx); err != nil {
		return err
	}
	c.tell(nil)
	return c.catchUp(ctx)
}

// journalLen is how many records the journal holds.
func (c *Copy) journalLen() int {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	if c.j == nil {
		return 0
	}
	return c.j.n
}

// catchUp applies the history after the copy's sequence number, to its
// end, a page at a time. Each record is applied once: one at or before
// the copy's number is skipped.
func (c *Copy) catchUp(ctx context.Context) error {
	start := time.Now()
	after := c.Seq()
	var page []record
	flush := func() error {
		if len(page) == 0 {
			return nil
		}
		last := page[len(page)-1].seq
		c.behind.Store(last - min(last, c.Seq()))
		err := c.apply(page)
		if err == nil {
			metrics.Counters.CopyApplied.Add(float64(len(page)))
		}
		page = page[:0]
		return err
	}
	err := c.src.Changes(ctx, store.ChangesQuery{After: after, Want: pageSize}, func(ch *store.Change) error {
		if ch.Seq <= after {
			return nil
		}
		after = ch.Seq
		r := record{seq: ch.Seq, batch: ch.Batch, kind: kindSet, key: ch.Key, b: ch.New}
		if ch.New == nil {
			r.kind = kindDelete
		}
		page = append(page, r)
		if len(page) == pageSize {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	c.behind.Store(0)
	c.currentAt.Store(start.UnixNano())
	c.serving.Store(true)
	c.caughtUp()
	return nil
}

// caughtUp tells those waiting in CatchUp that a catch-up ended.
func (c *Copy) caughtUp() {
	c.caughtMu.Lock()
	close(c.caught)
	c.caught = make(chan struct{})
	c.caughtMu.Unlock()
}

// CatchUp wakes the copy and waits until it has read the history to its
// end once more, or until ctx is done.
func (c *Copy) CatchUp(ctx context.Context) error {
	c.caughtMu.Lock()
	// A catch-up already under way may have read the history before
	// the caller's change: wait for the one after it.
	first := c.caught
	c.caughtMu.Unlock()
	c.Wake()
	select {
	case <-first:
	case <-ctx.Done():
		return ctx.Err()
	}
	c.caughtMu.Lock()
	second := c.caught
	c.caughtMu.Unlock()
	c.Wake()
	select {
	case <-second:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// build writes a base from src.Each, as of the last history record
// before it, and swaps it in. Each does not read one snapshot: a binding
// read after it changed is newer than that record, and the history read
// after the build brings the others up to date (the version check keeps
// a newer binding from being replaced by an older record).
func (c *Copy) build(ctx context.Context) error {
	c.building.Store(true)
	defer c.building.Store(false)
	started := time.Now()
	seq, err := lastSeq(ctx, c.src)
	if err != nil {
		return err
	}
	bw, err := newBaseWriter(c.dir)
	if err != nil {
		return err
	}
	if err := c.src.Each(ctx, bw.add); err != nil {
		bw.abort()
		return err
	}
	if err := bw.finish(seq, newID()); err != nil {
		return err
	}
	b, err := openBase(context.WithoutCancel(ctx), c.dir) // just written: in the page cache
	if err != nil {
		return err
	}
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	if err := c.install(b); err != nil {
		return err
	}
	c.logger.Info("local copy built", zap.String("dir", c.dir), zap.Int("bindings", b.count), zap.Uint64("seq", seq), zap.Duration("took", time.Since(started)))
	return nil
}

// newID returns a base's random id, which its journal names.
func newID() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return binary.LittleEndian.Uint64(b[:])
}

// lastSeq returns the sequence number of src's last history record, 0
// for none: the least x after which src has no record, found by asking
// for the one record after x, at x doubling from 1, then halving the
// span where the answer changed (some 2·log2 of the sequence reads of
// one record: the history may hold millions just made by an import).
func lastSeq(ctx context.Context, src store.Store) (uint64, error) {
	after := func(x uint64) (bool, error) {
		found := false
		err := src.Changes(ctx, store.ChangesQuery{After: x, Want: 1}, func(*store.Change) error {
			found = true
			return errStop
		})
		if err == errStop {
			err = nil
		}
		return found, err
	}
	if any, err := after(0); err != nil || !any {
		return 0, err
	}
	lo, hi := uint64(0), uint64(1) // a record after lo; maybe none after hi
	for {
		more, err := after(hi)
		if err != nil {
			return 0, err
		}
		if !more {
			break
		}
		if hi >= math.MaxUint64/2 {
			return hi, nil
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 { // a record after lo, none after hi
		mid := lo + (hi-lo)/2
		more, err := after(mid)
		if err != nil {
			return 0, err
		}
		if more {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// errStop ends a read of the history early.
var errStop = errors.New("stop")

// report updates the metrics and keeps err for Status.
func (c *Copy) report(err error) {
	if err != nil {
		metrics.Counters.CopyErrors.Inc()
		msg := err.Error()
		if prev := c.lastErr.Load(); prev == nil || *prev != msg {
			c.logger.Warn("local copy: cannot follow the store (read its history, or write the copy): lookups are answered from the copy as it is", zap.String("dir", c.dir), zap.Error(err))
		}
		c.lastErr.Store(&msg)
	} else {
		c.lastErr.Store(nil)
	}
	st := c.Status()
	metrics.Counters.CopySeq.Set(float64(st.Seq))
	metrics.Counters.CopyLag.Set(st.LagSeconds)
	metrics.Counters.CopyBehind.Set(float64(st.BehindChanges))
}
