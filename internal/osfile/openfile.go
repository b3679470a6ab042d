package osfile

import (
	"fmt"
	"os"
	"syscall"
)

// OpenRegular opens the table file at path for reading, refusing at once
// anything that is not a regular file: opening a FIFO would wait for a
// writer, and reading a device or a socket may never end. It opens without
// blocking, then checks what it opened.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file (%s): a table must be a regular file", path, Kind(fi.Mode()))
	}
	return f, nil
}

// Kind names the kind of a file that is not regular.
func Kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "type " + m.Type().String()
}
