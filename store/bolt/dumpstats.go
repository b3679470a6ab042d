package bolt

import (
	"context"
	be "encoding/binary"
	"fmt"
	"strings"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// statLists are the buckets of the statistics with the list each holds
// in a dump, in the lists' name order, the order of a dump's rows of one
// day.
var statLists = []struct {
	name   string
	bucket []byte
}{
	{store.StatNotFound, bucketStatsAbsent},
	{store.StatResolutions, bucketStatsRes},
	{store.StatTop, bucketStatsTop},
}

// statCursor reads one bucket of the statistics in key order.
type statCursor struct {
	list string
	c    *bolt.Cursor
	k, v []byte // the entry read next, k nil at the end
}

// dumpStats calls fn with every row of the statistics in tx, in
// store.StatRow order: day by day (each bucket's keys start with the
// day), and in each day the lists in name order, each in key order.
func dumpStats(ctx context.Context, tx *bolt.Tx, fn func(*store.Item) error) error {
	root := tx.Bucket(bucketStats)
	if root == nil {
		return nil // nothing counted yet
	}
	var cursors []*statCursor
	for _, l := range statLists {
		if bk := root.Bucket(l.bucket); bk != nil {
			sc := &statCursor{list: l.name, c: bk.Cursor()}
			sc.k, sc.v = sc.c.First()
			cursors = append(cursors, sc)
		}
	}
	for {
		var day string
		found := false
		for _, sc := range cursors {
			if d, _, _ := strings.Cut(string(sc.k), "\x00"); sc.k != nil && (!found || d < day) {
				day, found = d, true
			}
		}
		if !found {
			return nil
		}
		for _, sc := range cursors {
			for ; sc.k != nil; sc.k, sc.v = sc.c.Next() {
				if err := ctx.Err(); err != nil {
					return err
				}
				row, err := statRow(sc.list, sc.k, sc.v)
				if err != nil {
					return err
				}
				if row.Day != day {
					break
				}
				if err := fn(&store.Item{Stat: row}); err != nil {
					return err
				}
			}
		}
	}
}

// statRow decodes the entry k, v of list.
func statRow(list string, k, v []byte) (*store.StatRow, error) {
	day, rest, ok := strings.Cut(string(k), "\x00")
	if !ok || len(v) != 8 {
		return nil, fmt.Errorf("statistics: a damaged entry %q", k)
	}
	row := &store.StatRow{Day: day, List: list, Count: be.BigEndian.Uint64(v)}
	if list != store.StatResolutions {
		row.ID = rest
		return row, nil
	}
	if row.Shoulder, row.Outcome, ok = strings.Cut(rest, "\x00"); !ok {
		return nil, fmt.Errorf("statistics: a damaged key %q", k)
	}
	return row, nil
}

// loadStat puts row into the statistics in tx, as its count.
func loadStat(tx *bolt.Tx, row *store.StatRow) error {
	root, err := tx.CreateBucketIfNotExists(bucketStats)
	if err != nil {
		return err
	}
	key := row.Day + "\x00" + row.ID
	var name []byte
	for _, l := range statLists {
		if l.name == row.List {
			name = l.bucket
		}
	}
	if row.List == store.StatResolutions {
		key = row.Day + "\x00" + row.Shoulder + "\x00" + row.Outcome
	}
	bk, err := root.CreateBucketIfNotExists(name)
	if err != nil {
		return err
	}
	bk.FillPercent = sortedFill
	return bk.Put([]byte(key), be.BigEndian.AppendUint64(nil, row.Count))
}

// holdsStats reports whether tx holds a row of statistics.
func holdsStats(tx *bolt.Tx) bool {
	root := tx.Bucket(bucketStats)
	if root == nil {
		return false
	}
	for _, l := range statLists {
		if bk := root.Bucket(l.bucket); bk != nil {
			if k, _ := bk.Cursor().First(); k != nil {
				return true
			}
		}
	}
	return false
}
