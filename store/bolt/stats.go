package bolt

import (
	"bytes"
	"context"
	be "encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// The buckets of the statistics, created by the first AddStats: bucketStats
// holds one bucket for each kind of count, whose keys start with the day.
var (
	bucketStats       = []byte("stats")
	bucketStatsRes    = []byte("resolutions") // day, 0, shoulder, 0, outcome → count (8 bytes, big-endian)
	bucketStatsTop    = []byte("top")         // day, 0, identifier → count
	bucketStatsAbsent = []byte("not_found")   // day, 0, identifier → count
)

// AddStats implements store.StatsStore.
func (b *boltDB) AddStats(_ context.Context, s *store.Stats, keep store.StatsKeep) error {
	return b.update(func(tx *bolt.Tx) error {
		root, err := tx.CreateBucketIfNotExists(bucketStats)
		if err != nil {
			return err
		}
		res, err := root.CreateBucketIfNotExists(bucketStatsRes)
		if err != nil {
			return err
		}
		for _, r := range s.Resolutions {
			if err := addCount(res, []byte(r.Day+"\x00"+r.Shoulder+"\x00"+r.Outcome), r.Count); err != nil {
				return err
			}
		}
		if err := addNames(root, bucketStatsTop, s.Top, keep.Top); err != nil {
			return err
		}
		return addNames(root, bucketStatsAbsent, s.NotFound, keep.NotFound)
	})
}

// addNames adds the counts of names to list, then keeps the keep most
// counted names of each day that names touched.
func addNames(root *bolt.Bucket, list []byte, names []store.NameCount, keep int) error {
	if len(names) == 0 {
		return nil
	}
	bk, err := root.CreateBucketIfNotExists(list)
	if err != nil {
		return err
	}
	days := map[string]bool{}
	for _, n := range names {
		if err := addCount(bk, []byte(n.Day+"\x00"+n.ID), n.Count); err != nil {
			return err
		}
		days[n.Day] = true
	}
	for day := range days {
		if err := trimDay(bk, day, keep); err != nil {
			return err
		}
	}
	return nil
}

// addCount adds n to the count under key.
func addCount(bk *bolt.Bucket, key []byte, n uint64) error {
	var v [8]byte
	if old := bk.Get(key); len(old) == 8 {
		n += be.BigEndian.Uint64(old)
	}
	be.BigEndian.PutUint64(v[:], n)
	return bk.Put(key, v[:])
}

// trimDay keeps the keep most counted names of day in bk, ties going to
// the smaller name.
func trimDay(bk *bolt.Bucket, day string, keep int) error {
	type entry struct {
		key   []byte
		count uint64
	}
	prefix := []byte(day + "\x00")
	var all []entry
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		all = append(all, entry{bytes.Clone(k), be.BigEndian.Uint64(v)})
	}
	if len(all) <= keep {
		return nil
	}
	slices.SortStableFunc(all, func(a, b entry) int { // stable: equal counts stay in key order
		switch {
		case a.count > b.count:
			return -1
		case a.count < b.count:
			return 1
		}
		return 0
	})
	for _, e := range all[max(keep, 0):] {
		if err := bk.Delete(e.key); err != nil {
			return err
		}
	}
	return nil
}

// ReadStats implements store.StatsStore.
func (b *boltDB) ReadStats(_ context.Context, from, to string) (*store.Stats, error) {
	s := &store.Stats{}
	err := b.view(func(tx *bolt.Tx) error {
		root := tx.Bucket(bucketStats)
		if root == nil {
			return nil // nothing counted yet
		}
		err := eachInDays(root.Bucket(bucketStatsRes), from, to, func(day, rest string, n uint64) error {
			shoulder, outcome, ok := strings.Cut(rest, "\x00")
			if !ok {
				return fmt.Errorf("statistics: a damaged key %q", day+"\x00"+rest)
			}
			s.Resolutions = append(s.Resolutions, store.ResolutionCount{Day: day, Shoulder: shoulder, Outcome: outcome, Count: n})
			return nil
		})
		if err != nil {
			return err
		}
		if s.Top, err = readNames(root.Bucket(bucketStatsTop), from, to); err != nil {
			return err
		}
		s.NotFound, err = readNames(root.Bucket(bucketStatsAbsent), from, to)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// readNames returns the names of a list for the days from to to, by day,
// count (highest first) and name.
func readNames(bk *bolt.Bucket, from, to string) ([]store.NameCount, error) {
	var names []store.NameCount
	err := eachInDays(bk, from, to, func(day, id string, n uint64) error {
		names = append(names, store.NameCount{Day: day, ID: id, Count: n})
		return nil
	})
	slices.SortStableFunc(names, func(a, b store.NameCount) int {
		switch {
		case a.Day != b.Day:
			return strings.Compare(a.Day, b.Day)
		case a.Count > b.Count:
			return -1
		case a.Count < b.Count:
			return 1
		}
		return 0
	})
	return names, err
}

// eachInDays calls fn with the day, the rest of the key and the count of
// every key of bk whose day is from to to, in key order. bk may be nil.
func eachInDays(bk *bolt.Bucket, from, to string, fn func(day, rest string, n uint64) error) error {
	if bk == nil {
		return nil
	}
	c := bk.Cursor()
	for k, v := c.Seek([]byte(from)); k != nil; k, v = c.Next() {
		day, rest, ok := strings.Cut(string(k), "\x00")
		if !ok || len(v) != 8 {
			return fmt.Errorf("statistics: a damaged entry %q", k)
		}
		if day > to {
			return nil
		}
		if err := fn(day, rest, be.BigEndian.Uint64(v)); err != nil {
			return err
		}
	}
	return nil
}

// DropStats implements store.StatsStore.
func (b *boltDB) DropStats(_ context.Context, before string) error {
	return b.update(func(tx *bolt.Tx) error {
		root := tx.Bucket(bucketStats)
		if root == nil {
			return nil
		}
		for _, name := range [][]byte{bucketStatsRes, bucketStatsTop, bucketStatsAbsent} {
			bk := root.Bucket(name)
			if bk == nil {
				continue
			}
			c := bk.Cursor()
			for k, _ := c.First(); k != nil && string(k) < before; k, _ = c.First() {
				if err := c.Delete(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Interface guard.
var _ store.StatsStore = (*Store)(nil)
