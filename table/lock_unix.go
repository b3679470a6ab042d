//go:build unix

package table

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/dustin/go-humanize"
	"golang.org/x/sys/unix"
)

// lockMemory locks b, part of a mapping made by mapFile, in memory,
// reading what is not there yet.
func lockMemory(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return unix.Mlock(b)
}

// unlockMemory undoes lockMemory.
func unlockMemory(b []byte) {
	if len(b) > 0 {
		_ = unix.Munlock(b) // only fails for a range not mapped, which has nothing locked
	}
}

// lockError explains a refusal to lock need bytes: most often the
// process's locked-memory limit, which the error then names with the way
// to raise it.
func lockError(err error, need int) error {
	if !errors.Is(err, syscall.ENOMEM) && !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.EAGAIN) {
		return err
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_MEMLOCK, &lim) != nil || lim.Cur == unix.RLIM_INFINITY || lim.Cur >= uint64(need) {
		return err
	}
	return fmt.Errorf("%w: the locked-memory limit is %s and the table needs %s "+
		"(raise it with LimitMEMLOCK= in Caddy's systemd unit, or ulimit -l)", err, humanize.IBytes(lim.Cur), humanize.IBytes(uint64(need)))
}
