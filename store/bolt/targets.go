package bolt

import (
	"bytes"
	"context"
	be "encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// The buckets of target checks (store.TargetChecks), created when first
// written: a file that never checked its targets has none of them.
var (
	bucketTargets      = []byte("targets")      // target → sweep (8 bytes), TargetCheck (JSON); its sequence numbers the sweeps
	bucketTargetDue    = []byte("targetdue")    // due (8 bytes, Unix ns), target → nothing: the targets not paused, by when due
	bucketTargetFinal  = []byte("targetfinal")  // final URL, 0, target → nothing
	bucketTargetStates = []byte("targetstates") // state → how many targets are in it (8 bytes)
	bucketTargetLease  = []byte("targetlease")  // "lease" → targetLease (JSON)
)

// targetBatch is the most targets a sweep's cleanup handles in one
// transaction.
const targetBatch = 1000

// targetBuckets are the buckets of target checks in a write transaction,
// created if missing.
type targetBuckets struct {
	targets, due, final, states *bolt.Bucket
}

// openTargetBuckets opens the buckets of target checks in tx, creating
// those that are missing.
func openTargetBuckets(tx *bolt.Tx) (targetBuckets, error) {
	var tb targetBuckets
	var err error
	for _, p := range []struct {
		b    **bolt.Bucket
		name []byte
	}{{&tb.targets, bucketTargets}, {&tb.due, bucketTargetDue}, {&tb.final, bucketTargetFinal}, {&tb.states, bucketTargetStates}} {
		if *p.b, err = tx.CreateBucketIfNotExists(p.name); err != nil {
			return tb, err
		}
	}
	return tb, nil
}

// updateTargets runs fn in a write transaction with the target buckets
// open (made if need be).
func (b *boltDB) updateTargets(fn func(tb targetBuckets) error) error {
	return b.update(func(tx *bolt.Tx) error {
		tb, err := openTargetBuckets(tx)
		if err != nil {
			return err
		}
		return fn(tb)
	})
}

// dueKey is the key of target in bucketTargetDue.
func dueKey(due time.Time, target string) []byte {
	return append(be.BigEndian.AppendUint64(nil, uint64(max(0, due.UnixNano()))), target...)
}

// finalKey is the key of target in bucketTargetFinal.
func finalKey(final, target string) []byte {
	return append(append([]byte(final), 0), target...)
}

// get returns the record of target: its sweep and check, nil if none.
func (tb targetBuckets) get(target string) (uint64, *store.TargetCheck, error) {
	return decodeTarget(tb.targets.Get([]byte(target)))
}

func decodeTarget(v []byte) (uint64, *store.TargetCheck, error) {
	if v == nil {
		return 0, nil, nil
	}
	if len(v) < 8 {
		return 0, nil, fmt.Errorf("a damaged target check in the store")
	}
	c := new(store.TargetCheck)
	if err := json.Unmarshal(v[8:], c); err != nil {
		return 0, nil, fmt.Errorf("a damaged target check in the store: %w", err)
	}
	return be.BigEndian.Uint64(v), c, nil
}

// put stores c, swept in sweep, replacing old (nil for a new target), and
// keeps the indexes and the counts by state.
func (tb targetBuckets) put(sweep uint64, old, c *store.TargetCheck) error {
	if old != nil {
		if err := tb.unindex(old); err != nil {
			return err
		}
	}
	v, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := tb.targets.Put([]byte(c.Target), append(be.BigEndian.AppendUint64(nil, sweep), v...)); err != nil {
		return err
	}
	if !c.Paused {
		if err := tb.due.Put(dueKey(c.Due, c.Target), nil); err != nil {
			return err
		}
	}
	if c.Final != "" {
		if err := tb.final.Put(finalKey(c.Final, c.Target), nil); err != nil {
			return err
		}
	}
	return tb.count(c.State, 1)
}

// unindex takes c out of the indexes and the counts.
func (tb targetBuckets) unindex(c *store.TargetCheck) error {
	if err := tb.due.Delete(dueKey(c.Due, c.Target)); err != nil {
		return err
	}
	if c.Final != "" {
		if err := tb.final.Delete(finalKey(c.Final, c.Target)); err != nil {
			return err
		}
	}
	return tb.count(c.State, -1)
}

// count adds n to the count of targets in state.
func (tb targetBuckets) count(state store.TargetState, n int64) error {
	var cur uint64
	if v := tb.states.Get([]byte(state)); len(v) == 8 {
		cur = be.BigEndian.Uint64(v)
	}
	return tb.states.Put([]byte(state), be.BigEndian.AppendUint64(nil, uint64(int64(cur)+n)))
}

// BeginTargetSweep implements store.TargetChecks.
func (b *boltDB) BeginTargetSweep(context.Context) (uint64, error) {
	var sweep uint64
	err := b.updateTargets(func(tb targetBuckets) error {
		var err error
		sweep, err = tb.targets.NextSequence()
		return err
	})
	return sweep, err
}

// MarkTargets implements store.TargetChecks, in one transaction, and in
// none when every ref was marked already in this sweep: a sweep names a
// target once per identifier that has it.
func (b *boltDB) MarkTargets(ctx context.Context, sweep uint64, refs []store.TargetRef) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var fresh []store.TargetRef
	err := b.view(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketTargets)
		for _, ref := range refs {
			if bk == nil {
				fresh = append(fresh, ref)
				continue
			}
			was, old, err := decodeTarget(bk.Get([]byte(ref.Target)))
			if err != nil {
				return err
			}
			if old == nil || was < sweep || old.Paused && !ref.Paused {
				fresh = append(fresh, ref)
			}
		}
		return nil
	})
	if err != nil || len(fresh) == 0 {
		return err
	}
	return b.updateTargets(func(tb targetBuckets) error {
		for _, ref := range fresh {
			was, old, err := tb.get(ref.Target)
			if err != nil {
				return err
			}
			if old == nil {
				c := &store.TargetCheck{Target: ref.Target, Key: ref.Key, Paused: ref.Paused, State: store.TargetUnchecked, Due: ref.Due.UTC()}
				if err := tb.put(sweep, nil, c); err != nil {
					return err
				}
				continue
			}
			c := *old
			switch {
			case was < sweep:
				c.Key, c.Paused = ref.Key, ref.Paused
			case old.Paused && !ref.Paused:
				c.Paused = false
			default:
				continue // named before in this sweep, in this batch
			}
			if err := tb.put(max(was, sweep), old, &c); err != nil {
				return err
			}
		}
		return nil
	})
}

// EndTargetSweep implements store.TargetChecks, a batch of targets at a
// time.
func (b *boltDB) EndTargetSweep(ctx context.Context, sweep uint64) (int, error) {
	removed := 0
	var after []byte
	for {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		var stale [][]byte
		var last []byte
		err := b.view(func(tx *bolt.Tx) error {
			bk := tx.Bucket(bucketTargets)
			if bk == nil {
				return nil
			}
			c := bk.Cursor()
			k, v := firstAfter(c, after)
			for n := 0; k != nil && n < 10*targetBatch && len(stale) < targetBatch; k, v = c.Next() {
				if len(v) >= 8 && be.BigEndian.Uint64(v) < sweep {
					stale = append(stale, bytes.Clone(k))
				}
				last, n = bytes.Clone(k), n+1
			}
			if k == nil {
				last = nil
			}
			return nil
		})
		if err != nil {
			return removed, err
		}
		if len(stale) > 0 {
			err = b.updateTargets(func(tb targetBuckets) error {
				for _, k := range stale {
					was, c, err := tb.get(string(k))
					if err != nil || c == nil || was >= sweep {
						continue
					}
					if err := tb.unindex(c); err != nil {
						return err
					}
					if err := tb.targets.Delete(k); err != nil {
						return err
					}
					removed++
				}
				return nil
			})
			if err != nil {
				return removed, err
			}
		}
		if last == nil {
			return removed, nil
		}
		after = last
	}
}

// DueTargets implements store.TargetChecks.
func (b *boltDB) DueTargets(_ context.Context, now time.Time, n int) ([]*store.TargetCheck, error) {
	var out []*store.TargetCheck
	err := b.view(func(tx *bolt.Tx) error {
		due, targets := tx.Bucket(bucketTargetDue), tx.Bucket(bucketTargets)
		if due == nil {
			return nil
		}
		limit := be.BigEndian.AppendUint64(nil, uint64(max(0, now.UnixNano())))
		c := due.Cursor()
		for k, _ := c.First(); k != nil && len(out) < n && bytes.Compare(k[:8], limit) <= 0; k, _ = c.Next() {
			_, tc, err := decodeTarget(targets.Get(k[8:]))
			if err != nil {
				return err
			}
			if tc != nil {
				out = append(out, tc)
			}
		}
		return nil
	})
	return out, err
}

// PutTargetChecks implements store.TargetChecks, in one transaction.
func (b *boltDB) PutTargetChecks(_ context.Context, checks []*store.TargetCheck) error {
	return b.updateTargets(func(tb targetBuckets) error {
		for _, in := range checks {
			was, old, err := tb.get(in.Target)
			if err != nil {
				return err
			}
			if old == nil {
				continue
			}
			c := *in
			c.Key, c.Paused = old.Key, old.Paused
			c.Notified = c.Notified || old.Notified && old.State == c.State && old.Since.Equal(c.Since)
			c.Due, c.Checked, c.Since = c.Due.UTC(), c.Checked.UTC(), c.Since.UTC()
			if err := tb.put(was, old, &c); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetTargetsDue implements store.TargetChecks, in one transaction.
func (b *boltDB) SetTargetsDue(_ context.Context, refs []store.TargetRef) error {
	return b.updateTargets(func(tb targetBuckets) error {
		for _, ref := range refs {
			was, old, err := tb.get(ref.Target)
			if err != nil {
				return err
			}
			if old == nil {
				continue
			}
			c := *old
			c.Due = ref.Due.UTC()
			if err := tb.put(was, old, &c); err != nil {
				return err
			}
		}
		return nil
	})
}

// LookupTargetChecks implements store.TargetChecks.
func (b *boltDB) LookupTargetChecks(_ context.Context, targets []string) ([]*store.TargetCheck, error) {
	out := make([]*store.TargetCheck, len(targets))
	err := b.view(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketTargets)
		if bk == nil {
			return nil
		}
		for i, t := range targets {
			var err error
			if _, out[i], err = decodeTarget(bk.Get([]byte(t))); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// EachTargetCheck implements store.TargetChecks, a batch of checks in each
// read transaction, as Each does.
func (b *boltDB) EachTargetCheck(ctx context.Context, fn func(*store.TargetCheck) error) error {
	return eachPage(ctx, func(after []byte) (batch []*store.TargetCheck, last []byte, err error) {
		err = b.view(func(tx *bolt.Tx) error {
			bk := tx.Bucket(bucketTargets)
			if bk == nil {
				return nil
			}
			c := bk.Cursor()
			k, v := firstAfter(c, after)
			for ; k != nil; k, v = c.Next() {
				if len(batch) == store.EachBatchCount {
					last = []byte(batch[len(batch)-1].Target)
					return nil
				}
				_, tc, err := decodeTarget(v)
				if err != nil {
					return err
				}
				batch = append(batch, tc)
			}
			return nil
		})
		return batch, last, err
	}, fn)
}

// SharedFinal implements store.TargetChecks.
func (b *boltDB) SharedFinal(_ context.Context, final, target string, limit int) (int, error) {
	n := 0
	err := b.view(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketTargetFinal)
		if bk == nil {
			return nil
		}
		prefix := finalKey(final, "")
		c := bk.Cursor()
		for k, _ := c.Seek(prefix); k != nil && n < limit && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			if string(k[len(prefix):]) != target {
				n++
			}
		}
		return nil
	})
	return n, err
}

// TargetStates implements store.TargetChecks.
func (b *boltDB) TargetStates(context.Context) (map[store.TargetState]int, error) {
	out := map[store.TargetState]int{}
	err := b.view(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketTargetStates)
		if bk == nil {
			return nil
		}
		return bk.ForEach(func(k, v []byte) error {
			if len(v) == 8 && be.BigEndian.Uint64(v) > 0 {
				out[store.TargetState(k)] = int(be.BigEndian.Uint64(v))
			}
			return nil
		})
	})
	return out, err
}

// targetLease is who may check targets, until when.
type targetLease struct {
	Holder  string    `json:"holder"`
	Expires time.Time `json:"expires"`
}

var leaseKey = []byte("lease")

// LeaseTargets implements store.TargetChecks. A file is used by one
// process only, so the lease only orders the configs of this process.
func (b *boltDB) LeaseTargets(_ context.Context, holder string, ttl time.Duration) (bool, error) {
	held := false
	err := b.update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists(bucketTargetLease)
		if err != nil {
			return err
		}
		var l targetLease
		if v := bk.Get(leaseKey); v != nil {
			if err := json.Unmarshal(v, &l); err != nil {
				return fmt.Errorf("a damaged target lease in the store: %w", err)
			}
		}
		now := time.Now()
		if l.Holder != "" && l.Holder != holder && now.Before(l.Expires) {
			return nil
		}
		held = true
		v, err := json.Marshal(targetLease{Holder: holder, Expires: now.Add(ttl).UTC()})
		if err != nil {
			return err
		}
		return bk.Put(leaseKey, v)
	})
	return held, err
}

// ReleaseTargets implements store.TargetChecks.
func (b *boltDB) ReleaseTargets(_ context.Context, holder string) error {
	return b.update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketTargetLease)
		if bk == nil {
			return nil
		}
		var l targetLease
		if v := bk.Get(leaseKey); v == nil || json.Unmarshal(v, &l) != nil || l.Holder != holder {
			return nil
		}
		return bk.Delete(leaseKey)
	})
}

// Interface guard.
var _ store.TargetChecks = (*Store)(nil)

// Shared implements store.Shared: the open file, shared by every module
// of the same path.
func (s *Store) Shared() store.Store { return s.boltDB }

// Hold implements store.Shared: one more user of the open file.
func (s *Store) Hold() (store.Store, func() error) {
	key := s.poolKey
	v, _, _ := boltFiles.LoadOrNew(key, nil) // s uses it: it is there
	return v.(*boltDB), store.ReleaseOnce(func() error {
		_, err := boltFiles.Delete(key)
		return err
	})
}

// Interface guard.
var _ store.Shared = (*Store)(nil)
