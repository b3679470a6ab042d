//go:build !unix

package table

import (
	"io"
	"os"
)

// mapFile reads the whole of f where memory mapping is not available.
func mapFile(f *os.File) ([]byte, error) {
	return io.ReadAll(f)
}

// unmapFile releases what mapFile returned: the garbage collector does.
func unmapFile([]byte) {}

// willNeed does nothing where the file is read into memory whole.
func willNeed([]byte, int, int) {}

// fileStamp tells versions of a mapped file apart. Where the file is read
// into memory instead of mapped, nothing written to it later reaches the
// table: every stamp is the same, and a table is never found changed.
type fileStamp struct{ size int64 }

// statFile stamps f: the same for every file.
func statFile(*os.File) (fileStamp, error) { return fileStamp{}, nil }
