package bolt

import (
	"context"

	bolt "go.etcd.io/bbolt"
)

// SizeHint implements Store: the keys of the bindings bucket and of the
// committed imports not merged yet (the merger moves a key out of its
// import as it adds it to the bindings), counted from bbolt's pages
// without decoding a binding. It visits every page of those buckets:
// from a cold page cache that reads as much of the file as Each does.
func (b *boltDB) SizeHint(ctx context.Context) (n int64, ok bool) {
	if ctx.Err() != nil {
		return 0, false
	}
	err := b.view(func(tx *bolt.Tx) error {
		v := openView(tx)
		for _, bk := range append([]*bolt.Bucket{v.bindings}, v.merging...) {
			n += int64(bk.Stats().KeyN)
		}
		return nil
	})
	return n, err == nil
}
