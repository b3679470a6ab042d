//go:build unix

package table

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// mapFile maps the whole of f read-only and shared, so that processes
// mapping one file share its pages through the page cache, and advises
// the kernel that its pages are read at random (MADV_RANDOM): a lookup
// touches a few scattered pages, and a page fault then reads only its
// own page from disk, not the read-ahead window around it (read_ahead_kb,
// megabytes on many disks). Passes that read the file in order ask for
// read-ahead themselves (willNeed).
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
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	_ = unix.Madvise(data, unix.MADV_RANDOM) // advice: a kernel that ignores it reads ahead, which is only slower
	return data, nil
}

// willNeed asks the kernel to start reading data[from:to] into the page
// cache (MADV_WILLNEED), without waiting for it. data is a whole mapping
// made by mapFile; from is rounded down to a page, as madvise needs.
func willNeed(data []byte, from, to int) {
	from &^= os.Getpagesize() - 1
	if from < to {
		_ = unix.Madvise(data[from:to], unix.MADV_WILLNEED) // advice: without it, only slower
	}
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
