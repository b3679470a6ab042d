package testkit

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Mapping is one memory mapping of this process, as /proc/self/smaps
// describes it (Linux).
type Mapping struct {
	// Start is the mapping's first address.
	Start uintptr
	// Path is the file mapped, "" for anonymous memory.
	Path string
	// Size and Locked are the mapping's size and how much of it is locked
	// in memory (mlock), in bytes.
	Size, Locked int
}

// Mappings returns this process's memory mappings.
func Mappings(t testing.TB) []Mapping {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var maps []Mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if from, _, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			start, err := strconv.ParseUint(from, 16, 64)
			if err != nil {
				t.Fatalf("/proc/self/smaps: %q: %v", sc.Text(), err)
			}
			m := Mapping{Start: uintptr(start)}
			if len(fields) >= 6 {
				m.Path = strings.Join(fields[5:], " ")
			}
			maps = append(maps, m)
			continue
		}
		if len(maps) == 0 || len(fields) != 3 || fields[2] != "kB" {
			continue
		}
		kb, err := strconv.Atoi(fields[1])
		if err != nil {
			t.Fatalf("/proc/self/smaps: %q: %v", sc.Text(), err)
		}
		switch fields[0] {
		case "Size:":
			maps[len(maps)-1].Size = kb << 10
		case "Locked:":
			maps[len(maps)-1].Locked = kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return maps
}
