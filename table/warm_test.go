//go:build linux

package table

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Warm brings the index of a table whose file is not in the page cache
// into it (every page of the slots and the records), and not the keys
// and targets, which are the larger part.
func TestWarmReadsTheIndexOnly(t *testing.T) {
	path, keys := compileKeys(t, 100_000)
	ct, err := OpenCompiled(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if !dropPages(t, ct) {
		t.Skip("the page cache keeps this file's pages after POSIX_FADV_DONTNEED")
	}
	ct.Warm()
	resident := residentVector(t, ct.data)
	index := pagesOf(ct.data, ct.slots)
	index.to = pagesOf(ct.data, ct.records).to
	if got, want := resident.count(index), index.to-index.from; got != want {
		t.Errorf("after Warm, %d of the index's %d pages are in the page cache", got, want)
	}
	arena := pagesOf(ct.data, ct.arena)
	if got, all := resident.count(arena), arena.to-arena.from; got > all/2 {
		t.Errorf("Warm read %d of the arena's %d pages", got, all)
	}
	if a, ok := ct.Lookup(keys[7]); !ok || a.Status != 302 {
		t.Fatalf("%s after Warm: %+v, %v", keys[7], a, ok)
	}
}

// pageRange is the pages [from, to) of a mapping.
type pageRange struct{ from, to int }

// pagesOf returns the pages of data that section, a part of it, is on.
func pagesOf(data, section []byte) pageRange {
	page := os.Getpagesize()
	from := offsetIn(data, section)
	return pageRange{from / page, (from + len(section) + page - 1) / page}
}

// residency is, for each page of a mapping, whether it is in the page cache.
type residency []byte

// count returns how many pages of r are in the page cache.
func (v residency) count(r pageRange) int {
	n := 0
	for _, b := range v[r.from:r.to] {
		n += int(b & 1)
	}
	return n
}

// residentVector asks the kernel which pages of data, a whole mapping,
// are in the page cache.
func residentVector(tb testing.TB, data []byte) residency {
	tb.Helper()
	vec := make(residency, (len(data)+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		tb.Fatal(errno)
	}
	return vec
}
