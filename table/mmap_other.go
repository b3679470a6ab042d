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
