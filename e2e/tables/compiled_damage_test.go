package tables

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// A compiled table changed in place while Caddy serves it under load, the
// ways an attacker or a careless copy changes it (truncated to a size
// that is not a multiple of the page size, bytes of the index flipped, a
// smaller table written over it as `dd conv=notrunc` does), never answers
// 404 for an identifier it holds: each answers its target or 503. The
// process survives, and once a good file is renamed over the damaged one
// the watcher swaps it in and every identifier answers right again.
func TestCaddyNeverAnswers404ForACompiledTableChangedInPlace(t *testing.T) {
	const n = 2000
	entries := make([]table.Entry, n)
	for i := range entries {
		entries[i] = table.Entry{ID: fmt.Sprintf("ark:12345/d%d", i), Target: fmt.Sprintf("https://repo.example.org/%d", i)}
	}
	dir := t.TempDir()
	src := testkit.WriteFile(t, "all.json", caddytest.TableJSON(t, entries...))
	smaller := filepath.Join(dir, "smaller.arkt")
	if _, err := table.Compile([]string{testkit.WriteFile(t, "few.json", caddytest.TableJSON(t, table.Entry{ID: "ark:12345/other", Target: "https://elsewhere.example.org/"}))}, smaller); err != nil {
		t.Fatal(err)
	}
	// restore compiles the table onto the served file, as `caddy ark
	// compile -o` does: into a new file renamed over it, never in place.
	path := filepath.Join(dir, "arks.arkt")
	restore := func() {
		t.Helper()
		if _, err := table.Compile([]string{src}, path); err != nil {
			t.Fatal(err)
		}
	}
	restore()
	s := caddytest.StartOpsSite(t, "ark {\n\ttable "+path+"\n\twatch 100ms\n\tforeign 404\n}")

	// The load: two clients asking for every identifier in turn, and for
	// absent ones, counting answers that are wrong (a 404 for one the
	// table holds, another target, anything but 404 or 503 for an absent
	// one).
	var asked, unavailable, wrong atomic.Int64
	var firstWrong atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	stopLoad := sync.OnceFunc(func() {
		close(stop)
		wg.Wait()
	})
	defer stopLoad()
	for c := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; ; i += 2 {
				select {
				case <-stop:
					return
				default:
				}
				id, want := fmt.Sprintf("ark:12345/d%d", i%n), fmt.Sprintf("https://repo.example.org/%d", i%n)
				if i%7 == 0 {
					id, want = fmt.Sprintf("ark:12345/absent%d", i), ""
				}
				resp, err := caddytest.Client.Get(s.Base + "/" + id)
				if err != nil {
					wrong.Add(1)
					firstWrong.CompareAndSwap(nil, id+": "+err.Error())
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				asked.Add(1)
				switch {
				case resp.StatusCode == http.StatusServiceUnavailable:
					unavailable.Add(1)
				case want == "" && resp.StatusCode == http.StatusNotFound:
				case want != "" && resp.StatusCode == http.StatusFound && resp.Header.Get("Location") == want:
				default:
					wrong.Add(1)
					firstWrong.CompareAndSwap(nil, fmt.Sprintf("%s: %d %q", id, resp.StatusCode, resp.Header.Get("Location")))
				}
			}
		}()
	}

	// expectAll asks for every identifier once and checks that none
	// answers 404, and that all answer right when whole.
	expectAll := func(when string, whole bool) {
		t.Helper()
		var notFound, unreadable int
		for i := range n {
			got := s.Get(fmt.Sprintf("/ark:12345/d%d", i))
			switch {
			case got.Status == http.StatusFound && got.Location == fmt.Sprintf("https://repo.example.org/%d", i):
			case got.Status == http.StatusServiceUnavailable && !whole:
				unreadable++
			case got.Status == http.StatusNotFound:
				notFound++
			default:
				t.Fatalf("%s: ark:12345/d%d: %d %q", when, i, got.Status, got.Location)
			}
		}
		absent := s.Get("/ark:12345/absent")
		if notFound > 0 || (whole && absent.Status != http.StatusNotFound) || (!whole && absent.Status != http.StatusServiceUnavailable) {
			t.Errorf("%s: %d of %d identifiers the table holds answer 404 (%d answer 503); an absent one answers %d",
				when, notFound, n, unreadable, absent.Status)
		}
	}
	swaps := 1
	recoverFrom := func(damage string) {
		t.Helper()
		restore()
		swaps++
		testkit.WaitFor(t, "the good file to be swapped in after "+damage, func() bool {
			return len(caddytest.LogEntries(t, s.Log, swappedIn)) == swaps-1
		})
		expectAll("after the good file replaced the "+damage+" one", true)
	}
	writeInPlace := func(data []byte, at int64) {
		t.Helper()
		time.Sleep(30 * time.Millisecond) // past the granularity of file times
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(data, at); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	expectAll("whole", true)

	// Truncated to a size that is not a multiple of the page size: the
	// slots between the new end and the end of its page read as zeros.
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	if err := os.Truncate(path, table.CompiledHeaderSize+4096*table.CompiledSlotSize/2+1234); err != nil {
		t.Fatal(err)
	}
	expectAll("truncated", false)
	recoverFrom("truncated")

	// Bytes of the index flipped: slots zeroed hide the keys past them.
	zeros := make([]byte, 64*table.CompiledSlotSize)
	for at := int64(table.CompiledHeaderSize); at < table.CompiledHeaderSize+4096*table.CompiledSlotSize; at += 1024 {
		writeInPlace(zeros, at)
	}
	expectAll("flipped", false)
	recoverFrom("flipped")

	// A smaller table written over it without truncating (dd conv=notrunc).
	data, err := os.ReadFile(smaller)
	if err != nil {
		t.Fatal(err)
	}
	writeInPlace(data, 0)
	if after, err := os.Stat(path); err != nil || after.Size() != fi.Size() {
		t.Fatalf("dd conv=notrunc changed the size: %v %v", after, err)
	}
	expectAll("overwritten", false)
	recoverFrom("overwritten")

	stopLoad()
	if wrong.Load() > 0 {
		t.Errorf("under load, %d of %d answers were wrong, the first %v", wrong.Load(), asked.Load(), firstWrong.Load())
	}
	t.Logf("under load: %d answers, %d of them 503", asked.Load(), unavailable.Load())
}
