//go:build linux

package table

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// compileKeys compiles a redirect table of n ARKs and returns its path
// and the ARKs.
func compileKeys(tb testing.TB, n int) (string, []string) {
	tb.Helper()
	dir := tb.TempDir()
	src := filepath.Join(dir, "src.json")
	f, err := os.Create(src)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	keys := make([]string, n)
	w.WriteString(`{"entries": [`)
	for i := range keys {
		keys[i] = fmt.Sprintf("ark:12345/x5%08d", i)
		if i > 0 {
			w.WriteString(",\n")
		}
		fmt.Fprintf(w, `{"id": %q, "target": "https://repo.example.org/items/%08d"}`, keys[i], i)
	}
	w.WriteString("]}\n")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "t.arkt")
	if _, err := Compile([]string{src}, out); err != nil {
		tb.Fatal(err)
	}
	return out, keys
}

// dropPages takes the pages of t's file out of this process's mapping
// and then out of the page cache, as if the file had not been read since
// the machine started. It reports false where the page cache keeps them
// (a file system that ignores POSIX_FADV_DONTNEED). Pages still being
// read ahead cannot be dropped yet: it tries again for up to a second.
func dropPages(tb testing.TB, t *Compiled) bool {
	tb.Helper()
	for range 100 {
		if err := unix.Madvise(t.data, unix.MADV_DONTNEED); err != nil {
			tb.Fatal(err)
		}
		if err := unix.Fadvise(int(t.file.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
			tb.Fatal(err)
		}
		if residentPages(tb, t.data) <= 2 {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// residentPages counts the pages of a mapping that are in the page cache.
func residentPages(tb testing.TB, data []byte) int {
	tb.Helper()
	v := residentVector(tb, data)
	return v.count(pageRange{0, len(v)})
}

// From a cold page cache, a lookup reads the pages it touches (its index
// slots, its record, its key and target: at most five, when they straddle
// pages) and not the read-ahead window around each, which is up to
// megabytes (read_ahead_kb): the mapping is advised random access.
func TestColdLookupsReadOnlyThePagesTheyTouch(t *testing.T) {
	path, keys := compileKeys(t, 100_000)
	ct, err := OpenCompiled(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if !dropPages(t, ct) {
		t.Skip("the page cache keeps this file's pages after POSIX_FADV_DONTNEED")
	}
	const lookups, perLookup = 20, 5
	pages := len(ct.data) / os.Getpagesize()
	rng := rand.New(rand.NewPCG(1, 2))
	for range lookups {
		key := keys[rng.IntN(len(keys))]
		if a, ok := ct.Lookup(key); !ok || a.Status != 302 {
			t.Fatalf("%s: %+v, %v", key, a, ok)
		}
	}
	got := residentPages(t, ct.data)
	t.Logf("%d cold lookups: %d of %d pages in the page cache", lookups, got, pages)
	if got > lookups*perLookup {
		t.Errorf("%d cold lookups brought %d of the file's %d pages into the page cache, more than %d each", lookups, got, pages, perLookup)
	}
	if !dropPages(t, ct) {
		t.Fatal("the page cache kept the pages this time")
	}
	for i := range lookups {
		if _, ok := ct.Lookup(fmt.Sprintf("ark:12345/absent%d", i)); ok {
			t.Fatal("an absent key was found")
		}
	}
	got = residentPages(t, ct.data)
	t.Logf("%d cold misses: %d pages in the page cache", lookups, got)
	if got > lookups*2 {
		t.Errorf("%d cold misses brought %d pages into the page cache, more than 2 each", lookups, got)
	}
}

// BenchmarkColdLookup looks up one random key of a compiled table whose
// pages were all dropped from the page cache first, and reports what the
// lookup read: pages brought into the page cache (mincore), bytes read
// from the disk (/proc/self/io read_bytes) and major page faults
// (getrusage). ARK_BENCH_COMPILED and ARK_BENCH_KEYS name a compiled table
// and its keys (gentable -keys); without them, one of 200,000 ARKs is
// compiled. The time is a cold lookup's: the disk's, mostly.
func BenchmarkColdLookup(b *testing.B) {
	path, keys := os.Getenv("ARK_BENCH_COMPILED"), []string(nil)
	if path == "" {
		path, keys = compileKeys(b, 200_000)
	} else {
		data, err := os.ReadFile(os.Getenv("ARK_BENCH_KEYS"))
		if err != nil {
			b.Fatal(err)
		}
		keys = strings.Fields(string(data))
	}
	ct, err := OpenCompiled(path, false)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var pages, readBytes, majflt int64
	for b.Loop() {
		b.StopTimer()
		key := keys[rng.IntN(len(keys))]
		if !dropPages(b, ct) {
			b.Skip("the page cache keeps this file's pages after POSIX_FADV_DONTNEED")
		}
		io0, flt0 := readBytesSoFar(b), majorFaults(b)
		b.StartTimer()
		_, ok := ct.Lookup(key)
		b.StopTimer()
		if !ok {
			b.Fatalf("%s not found", key)
		}
		readBytes += readBytesSoFar(b) - io0
		majflt += majorFaults(b) - flt0
		pages += int64(residentPages(b, ct.data))
		b.StartTimer()
	}
	b.ReportMetric(float64(pages)/float64(b.N), "pages/op")
	b.ReportMetric(float64(readBytes)/float64(b.N), "read-B/op")
	b.ReportMetric(float64(majflt)/float64(b.N), "majflt/op")
}

// readBytesSoFar returns what this process has read from storage
// (read_bytes of /proc/self/io).
func readBytesSoFar(tb testing.TB) int64 {
	tb.Helper()
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "read_bytes: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return n
		}
	}
	tb.Fatal("no read_bytes in /proc/self/io")
	return 0
}

// majorFaults returns this process's major page faults so far.
func majorFaults(tb testing.TB) int64 {
	tb.Helper()
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Majflt
}
