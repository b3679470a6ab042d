// Command boltstats prints where the bytes of a bbolt store file go: the
// file's size, its pages in use, free and pending, and for each top-level
// bucket its keys, pages and the bytes its leaves hold, with the bytes
// per binding of each, for bench/importmem.sh. The file must not be open
// in a running Caddy.
//
//	go run ./bench/boltstats store.db
package main

import (
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: boltstats FILE")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "boltstats:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		return err
	}
	defer db.Close()
	page := db.Info().PageSize
	return db.View(func(tx *bolt.Tx) error {
		bindings := tx.Bucket([]byte("bindings")).Stats().KeyN
		per := func(n int) string {
			if bindings == 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f", float64(n)/float64(bindings))
		}
		st := db.Stats()
		fmt.Printf("BOLTSTATS file=%s bytes=%d bindings=%d bytes_per_binding=%s page=%d pages=%d free_pages=%d pending_pages=%d freelist_bytes=%d\n",
			path, fi.Size(), bindings, per(int(fi.Size())), page, tx.Size()/int64(page), st.FreePageN, st.PendingPageN, st.FreeAlloc)
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			s := b.Stats()
			alloc := s.BranchAlloc + s.LeafAlloc
			inuse := s.BranchInuse + s.LeafInuse
			fill := 0.0
			if alloc > 0 {
				fill = 100 * float64(inuse) / float64(alloc)
			}
			fmt.Printf("BOLTSTATS bucket=%s keys=%d buckets=%d leaf_pages=%d leaf_overflow=%d branch_pages=%d alloc_bytes=%d inuse_bytes=%d fill_pct=%.0f alloc_per_binding=%s\n",
				name, s.KeyN, s.BucketN-1, s.LeafPageN, s.LeafOverflowN, s.BranchPageN, alloc, inuse, fill, per(alloc))
			return nil
		})
	})
}
