//go:build !unix

package table

import "errors"

// lockMemory refuses where tables are read into the heap instead of
// mapped: the heap is where the garbage collector keeps it.
func lockMemory([]byte) error {
	return errors.New("locking memory is not supported on this system; the table is read into the heap, not mapped")
}

// unlockMemory does nothing where nothing is locked.
func unlockMemory([]byte) {}

// lockError says no more than err.
func lockError(err error, _ int) error { return err }
