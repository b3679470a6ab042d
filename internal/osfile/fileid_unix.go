//go:build unix

package osfile

import (
	"io/fs"
	"syscall"
)

// ID returns the device and inode of a file, which tell a file
// replaced by a rename from the one it replaced.
func ID(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
