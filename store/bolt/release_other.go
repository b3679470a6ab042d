//go:build !linux

package bolt

import bolt "go.etcd.io/bbolt"

// dropMapped does nothing where the mapping's length cannot be read: the
// file's pages stay mapped until the kernel needs them.
func dropMapped(*bolt.Tx) (uintptr, error) { return 0, nil }
