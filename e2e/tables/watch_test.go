package tables

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

const (
	notReloaded = "table not reloaded: the running table keeps serving"
	swappedIn   = "table swapped in"
)

func TestWatchSwapsGoodTablesAndKeepsServingThroughBadOnes(t *testing.T) {
	path := testkit.WriteFile(t, "arks.json", caddytest.TableJSON(t, table.Entry{ID: "ark:12345/x5wf6789", Target: "https://repo.example.org/v1"}))
	s := caddytest.StartOpsSite(t, "ark {\n\ttable "+path+"\n\twatch 100ms\n\tforeign 404\n}")
	location := func(id string) string { return s.Get("/" + id).Location }
	for range 3 { // warm the cache (a repaired spelling and a miss are cached from their second request)
		if got := location("ark:12345/x5wf6789"); got != "https://repo.example.org/v1" {
			t.Fatalf("v1: %q", got)
		}
		if got := location("ark:/12345/x5-wf6789"); got != "https://repo.example.org/v1" {
			t.Fatalf("v1, repaired spelling: %q", got)
		}
		if got := s.Get("/ark:12345/newone"); got.Status != http.StatusNotFound {
			t.Fatalf("newone before: %d", got.Status)
		}
	}

	// An editor's save: a new file renamed over the old.
	testkit.ReplaceFile(t, path, caddytest.TableJSON(t,
		table.Entry{ID: "ark:12345/x5wf6789", Target: "https://repo.example.org/v2"},
		table.Entry{ID: "ark:12345/newone", Target: "https://repo.example.org/newone"}))
	testkit.WaitFor(t, "the swap", func() bool { return len(caddytest.LogEntries(t, s.Log, swappedIn)) == 1 })
	if got := location("ark:12345/x5wf6789"); got != "https://repo.example.org/v2" {
		t.Errorf("the old table answered after the swap: %q", got)
	}
	if got := location("ark:/12345/x5-wf6789"); got != "https://repo.example.org/v2" {
		t.Errorf("a cached answer outlived the swap: %q", got)
	}
	if got := location("ark:12345/newone"); got != "https://repo.example.org/newone" {
		t.Errorf("a cached 404 outlived the swap: %q", got)
	}
	if n := len(caddytest.LogEntries(t, s.Log, "table loaded")); n != 2 {
		t.Errorf("%d table loads logged, want 2", n)
	}

	bad := []struct {
		name, content string
		write         func(*testing.T, string, string)
		fields        map[string]any
	}{
		{"equivalent ids with different targets", `{"entries": [
  {"id": "ark:12345/x5wf6789", "target": "https://repo.example.org/v3"},
  {"id": "ark:/12345/x5-wf-6789", "target": "https://repo.example.org/other"}
]}`, writeInPlace, map[string]any{"file": path, "line": 3.0, "entry": 1.0}},
		{"a partly written file", `{"entries": [
  {"id": "ark:12345/x5wf6789", "target": "https://repo.example.org/v3"},
  {"id": "ark:12345/newone", "tar`, testkit.ReplaceFile, map[string]any{"file": path, "entry": 1.0}},
		{"a permanent redirect", caddytest.TableJSON(t, table.Entry{ID: "ark:12345/x5wf6789", Target: "https://repo.example.org/v3", Status: 308}),
			testkit.ReplaceFile, map[string]any{"file": path, "entry": 0.0}},
	}
	for i, b := range bad {
		before := s.Metrics()[caddytest.TableLoads("watch", "error")]
		b.write(t, path, b.content)
		testkit.WaitFor(t, b.name+" to be refused", func() bool { return len(caddytest.LogEntries(t, s.Log, notReloaded)) == i+1 })
		e := caddytest.LogEntries(t, s.Log, notReloaded)[i]
		if e["level"] != "error" || e["reason"] == nil || e["reason"] == "" {
			t.Errorf("%s: logged %v", b.name, e)
		}
		for k, v := range b.fields {
			if e[k] != v {
				t.Errorf("%s: logged %s %v, want %v (%v)", b.name, k, e[k], v, e)
			}
		}
		if got := s.Metrics()[caddytest.TableLoads("watch", "error")] - before; got != 1 {
			t.Errorf("%s: counted %v errors", b.name, got)
		}
		if got := location("ark:12345/x5wf6789"); got != "https://repo.example.org/v2" {
			t.Fatalf("%s: the old table stopped answering: %q", b.name, got)
		}
	}

	// A removed file is an error too, and the old table keeps serving.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the removal to be refused", func() bool { return len(caddytest.LogEntries(t, s.Log, notReloaded)) == len(bad)+1 })
	if got := location("ark:12345/newone"); got != "https://repo.example.org/newone" {
		t.Fatalf("after the removal: %q", got)
	}

	testkit.ReplaceFile(t, path, caddytest.TableJSON(t, table.Entry{ID: "ark:12345/x5wf6789", Target: "https://repo.example.org/v3"}))
	testkit.WaitFor(t, "the swap to v3", func() bool { return len(caddytest.LogEntries(t, s.Log, swappedIn)) == 2 })
	if got := location("ark:12345/x5wf6789"); got != "https://repo.example.org/v3" {
		t.Errorf("v3: %q", got)
	}
	if got := s.Get("/ark:12345/newone"); got.Status != http.StatusNotFound {
		t.Errorf("newone after v3: %d %q", got.Status, got.Location)
	}
	if got := s.Metrics()["caddy_ark_table_entries"]; got != 1 {
		t.Errorf("caddy_ark_table_entries = %v after v3", got)
	}
}

// writeInPlace overwrites the file at path, as a program that does not
// rename does.
func writeInPlace(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A burst of requests while the table is swapped again and again: none
// fails, and once a version is swapped in, or any request has seen it, no
// later request sees an older one.
func TestWatchSwapsUnderLoadWithoutFailuresOrStaleAnswers(t *testing.T) {
	const ids = 20
	version := func(v int) string {
		entries := make([]table.Entry, ids)
		for i := range entries {
			entries[i] = table.Entry{ID: fmt.Sprintf("ark:12345/b%d", i), Target: fmt.Sprintf("https://repo.example.org/%d/v%d", i, v)}
		}
		return caddytest.TableJSON(t, entries...)
	}
	path := testkit.WriteFile(t, "arks.json", version(0))
	s := caddytest.StartOpsSite(t, "ark {\n\ttable "+path+"\n\twatch 100ms\n}")
	transport := &http.Transport{MaxIdleConnsPerHost: 8}
	defer transport.CloseIdleConnections()
	burst := &http.Client{Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	baseline := runtime.NumGoroutine()

	var seen atomic.Int64 // the newest version any request has seen
	var requests, failures atomic.Int64
	var firstFailure sync.Once
	var failure string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for n := w; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				floor := seen.Load()
				i := n % ids
				got, err := versionAt(burst, s.Base, i)
				requests.Add(1)
				if err == nil && got < floor {
					err = fmt.Errorf("b%d answered v%d after v%d had been seen", i, got, floor)
				}
				if err != nil {
					failures.Add(1)
					firstFailure.Do(func() { failure = err.Error() })
					continue
				}
				raise(&seen, got)
			}
		})
	}
	const swaps = 8
	for v := 1; v <= swaps; v++ {
		testkit.ReplaceFile(t, path, version(v))
		testkit.WaitFor(t, "the swap to v"+strconv.Itoa(v), func() bool { return len(caddytest.LogEntries(t, s.Log, swappedIn)) == v })
		raise(&seen, int64(v))
		testkit.WaitFor(t, "requests after the swap to v"+strconv.Itoa(v), func() bool { return requests.Load() > int64(v)*200 })
	}
	close(stop)
	wg.Wait()
	if failures.Load() != 0 {
		t.Fatalf("%d of %d requests failed; the first: %s", failures.Load(), requests.Load(), failure)
	}
	t.Logf("%d requests across %d swaps", requests.Load(), swaps)

	// The swapped-out resolvers' caches are closed once nothing can reach
	// them: their goroutines end.
	transport.CloseIdleConnections()
	testkit.WaitFor(t, "the swapped-out caches' goroutines to end", func() bool {
		runtime.GC()
		return runtime.NumGoroutine() <= baseline+2
	})
}

// raise sets v to n unless it is higher already.
func raise(v *atomic.Int64, n int64) {
	for old := v.Load(); n > old && !v.CompareAndSwap(old, n); old = v.Load() {
	}
}

// versionAt requests ark:12345/b<i> and returns the table version that
// answered.
func versionAt(c *http.Client, base string, i int) (int64, error) {
	resp, err := c.Get(base + "/ark:12345/b" + strconv.Itoa(i))
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	prefix := "https://repo.example.org/" + strconv.Itoa(i) + "/v"
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, prefix) {
		return 0, fmt.Errorf("b%d: %d %q", i, resp.StatusCode, loc)
	}
	return strconv.ParseInt(loc[len(prefix):], 10, 64)
}
