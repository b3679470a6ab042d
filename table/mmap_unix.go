//go:build unix

package table

import (
	"errors"
	"os"
	"syscall"
)

// mapFile maps the whole of f read-only and shared, so that processes
// mapping one file share its pages through the page cache.
func mapFile(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size == 0 {
		return nil, errors.New("empty file")
	}
	if int64(int(size)) != size {
		return nil, errors.New("file too large to map")
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

// unmapFile releases a mapping made by mapFile.
func unmapFile(data []byte) {
	_ = syscall.Munmap(data)
}
