//go:build unix

package ark

import (
	"io/fs"
	"syscall"
)

// fileID returns the device and inode of a file, which tell a file
// replaced by a rename from the one it replaced.
func fileID(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
