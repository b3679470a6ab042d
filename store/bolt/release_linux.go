package bolt

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// dropMapped tells the kernel that the pages of bbolt's mapping of the
// file that tx reads are not needed (MADV_DONTNEED): they leave the
// process's RSS and stay in the page cache, and a read maps them again.
// The mapping is read-only and shared, and bbolt writes through the file,
// so nothing is lost. tx must stay open meanwhile: bbolt remaps the file
// only when no read transaction is open. The mapping's length, which
// dropMapped returns, is read from /proc/self/maps, by its start.
func dropMapped(tx *bolt.Tx) (uintptr, error) {
	start := tx.DB().Info().Data
	end, err := mappingEnd(start)
	if err != nil {
		return 0, err
	}
	if _, _, errno := unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_DONTNEED); errno != 0 {
		return 0, fmt.Errorf("madvise: %w", errno)
	}
	return end - start, nil
}

// mappingEnd returns the end of the mapping that begins at start.
func mappingEnd(start uintptr) (uintptr, error) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	prefix := fmt.Appendf(nil, "%08x-", start) // as the kernel writes it
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, prefix) {
			continue
		}
		field, _, _ := bytes.Cut(line[len(prefix):], []byte(" "))
		end, err := strconv.ParseUint(string(field), 16, 64)
		if err != nil || uintptr(end) <= start {
			return 0, fmt.Errorf("/proc/self/maps: %q", line)
		}
		return uintptr(end), nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no mapping at %#x in /proc/self/maps", start)
}
