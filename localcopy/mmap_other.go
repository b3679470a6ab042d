//go:build !unix

package localcopy

import (
	"io"
	"os"
)

// mapFile reads the whole of f into memory, where memory mapping is not
// available.
func mapFile(f *os.File) ([]byte, func(), error) {
	data, err := io.ReadAll(f)
	return data, func() {}, err
}
