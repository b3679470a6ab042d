//go:build unix

package table

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
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

// fileStamp is what fstat says of a mapped file that changes when the file
// is written in place: its size, and its modification and change times.
// Nothing can set the change time back, so a write always shows.
type fileStamp struct {
	size         int64
	mtime, ctime unix.Timespec
}

// statFile stamps the open file f.
func statFile(f *os.File) (fileStamp, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fileStamp{}, err
	}
	return fileStamp{size: st.Size, mtime: st.Mtim, ctime: st.Ctim}, nil
}
