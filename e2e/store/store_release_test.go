package store

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// After a large import through the API, once it is merged, the bolt
// store gives back the memory it took: the pages of its file that bbolt's
// mapping took in leave the process's RSS (they stay in the page cache),
// and the log says so at debug level. The identifiers resolve as before,
// their pages mapped again as they are read.
func TestCaddyGivesBackTheMemoryOfALargeImport(t *testing.T) {
	s, ops := startReleaseSite(t, "")
	const n = 30000
	var body strings.Builder
	body.WriteString(`{"entries": [`)
	for i := range n {
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, `{"id": "ark:12345/r%d", "target": "https://repo.example.org/r/%d"}`, i, i)
	}
	body.WriteString("]}")
	if got := s.Call("POST", "/import", "editor", body.String()); got.Status != http.StatusOK {
		t.Fatalf("import: %d %s", got.Status, got.Body)
	}
	expectGivenBack(t, s, ops, n)
	for _, i := range []int{0, n / 2, n - 1} {
		if got := s.Get(fmt.Sprintf("/ark:12345/r%d", i)); got.Status != http.StatusFound || got.Location != fmt.Sprintf("https://repo.example.org/r/%d", i) {
			t.Errorf("ark:12345/r%d: %d %s", i, got.Status, got.Location)
		}
	}
	if resident, _ := mappedResident(t, s.DB); resident == 0 {
		t.Error("read again, none of the store file's pages are mapped: the reads were not from the mapping measured")
	}
}

// Many writes of a few bindings each (here mints of 1,000 names a
// request; bulk lines and PUTs count the same way) are given back too,
// once they pause.
func TestCaddyGivesBackTheMemoryOfManySmallWrites(t *testing.T) {
	s, ops := startReleaseSite(t, "minter ark:12345/x5 .zd")
	const requests, per = 11, 1000
	for range requests {
		if got := s.Call("POST", fmt.Sprintf("/mint/ark:12345/x5?n=%d", per), "editor", ""); got.Status != http.StatusCreated {
			t.Fatalf("mint: %d %s", got.Status, got.Body)
		}
	}
	expectGivenBack(t, s, ops, requests*per)
}

// startReleaseSite starts an APISite, with more in its ark block, that
// logs to a file.
func startReleaseSite(t *testing.T, more string) (*caddytest.APISite, *caddytest.OpsSite) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the mapped pages are given back on Linux only")
	}
	s := &caddytest.APISite{
		DB:    filepath.Join(t.TempDir(), "ark.db"),
		Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	ops := caddytest.NewOpsSite(t)
	s.Site = ops.Site
	if err := s.Load(caddytest.APISiteBody(s.DB, s.Table, more)); err != nil {
		t.Fatal(err)
	}
	return s, ops
}

// expectGivenBack waits for the store of s to log that it gave back the
// memory of n bindings written, then fails t unless at most 64 KiB of its
// file's mapping is resident.
func expectGivenBack(t *testing.T, s *caddytest.APISite, ops *caddytest.OpsSite, n int) {
	t.Helper()
	testkit.WaitFor(t, fmt.Sprintf("the store to give back the memory of %d bindings written", n), func() bool {
		for _, e := range caddytest.LogEntries(t, ops.Log, storeGaveBack) {
			if e["bindings"] == float64(n) && e["mapped_error"] == nil {
				return true
			}
		}
		return false
	})
	fi, err := os.Stat(s.DB)
	if err != nil {
		t.Fatal(err)
	}
	resident, mapped := mappedResident(t, s.DB)
	if mapped < fi.Size() || resident > 64<<10 {
		t.Errorf("after the writes, %d bytes of the %d-byte mapping of the %d-byte store file are resident; want it mapped whole and at most 64 KiB resident", resident, mapped, fi.Size())
	}
}

// mappedResident returns how many bytes of this process's mappings of
// path are resident, and how large they are, from /proc/self/smaps.
func mappedResident(t *testing.T, path string) (resident, size int64) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			in = len(fields) >= 6 && fields[len(fields)-1] == path
		case in && len(fields) == 3 && (fields[0] == "Rss:" || fields[0] == "Size:"):
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				t.Fatalf("/proc/self/smaps: %q", sc.Text())
			}
			if fields[0] == "Rss:" {
				resident += kb << 10
			} else {
				size += kb << 10
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return resident, size
}

// The debug message of a store that gave back the memory of a large write.
const storeGaveBack = "gave back the memory of a large write"
