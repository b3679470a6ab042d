//go:build !unix

package ark

import "io/fs"

// fileID returns 0, 0: the system gives no inode through os.Stat. Size and
// modification time still tell versions of a file apart.
func fileID(fs.FileInfo) (dev, ino uint64) { return 0, 0 }
