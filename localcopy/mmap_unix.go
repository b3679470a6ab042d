//go:build unix

package localcopy

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// mapFile maps the whole of f read-only, its pages read at random.
func mapFile(f *os.File) ([]byte, func(), error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := fi.Size()
	if size == 0 || int64(int(size)) != size {
		return nil, nil, errors.New("local copy: the base file is empty or too large to map")
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	_ = unix.Madvise(data, unix.MADV_RANDOM) // advice: without it, only slower
	return data, func() { _ = syscall.Munmap(data) }, nil
}
