package api

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
)

// apiSend makes an API request as the editor from any goroutine: it returns
// the status and body, or an error instead of failing the test.
func apiSend(s *caddytest.APISite, method, path, body string) (int, string, error) {
	req, err := http.NewRequest(method, s.Base+"/api/ark"+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer editor-secret")
	resp, err := caddytest.Client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data), err
}

// changesPoller follows GET changes as a mirror would: from the last seq
// it saw, a page of limit at a time, keeping every seq it was given.
type changesPoller struct {
	s      *caddytest.APISite
	limit  int
	cursor uint64
	seen   map[uint64]bool
}

// poll reads the pages after the cursor until one is not full, and
// returns how many records it read.
func (p *changesPoller) poll() (int, error) {
	read := 0
	for {
		status, body, err := apiSend(p.s, "GET", fmt.Sprintf("/changes?since=%d&limit=%d", p.cursor, p.limit), "")
		if err != nil {
			return read, err
		}
		if status != http.StatusOK {
			return read, fmt.Errorf("GET changes?since=%d: %d %s", p.cursor, status, body)
		}
		n := 0
		for line := range strings.SplitSeq(strings.TrimSuffix(body, "\n"), "\n") {
			if line == "" {
				continue
			}
			var c store.Change
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				return read, fmt.Errorf("GET changes: %q: %v", line, err)
			}
			if c.Seq <= p.cursor {
				return read, fmt.Errorf("GET changes?since=%d gave seq %d", p.cursor, c.Seq)
			}
			p.seen[c.Seq], p.cursor, n = true, c.Seq, n+1
		}
		read += n
		if n < p.limit {
			return read, nil
		}
	}
}

// checkChangesPolled writes in every way at once (PUT, PATCH, withdraw,
// bulk, mint, import, retarget and undo) while a poller follows GET
// changes, advancing its cursor to the last seq it saw; once everything
// is written (and, in bbolt, merged), every record of the whole history
// must be among those the poller saw.
func checkChangesPolled(t *testing.T, s *caddytest.APISite) {
	const rounds = 24
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		errs     []error
		imported []string // the keys the imports added
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	write := func(method, path, body string, want ...int) string {
		status, got, err := apiSend(s, method, path, body)
		if err == nil && !slices.Contains(want, status) {
			err = fmt.Errorf("%s %s: %d %s", method, path, status, got)
		}
		if err != nil {
			fail(err)
		}
		return got
	}
	// Identifiers that the retargets move back and forth.
	var moving []string
	for i := range 1000 {
		moving = append(moving, fmt.Sprintf(`{"id": "ark:12345/r%d", "target": "https://old.example.org/r%d"}`, i, i))
	}
	write("POST", "/import", `{"entries": [`+strings.Join(moving, ",")+`]}`, http.StatusOK)
	run := func(fn func(w int)) {
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fn(w)
			}()
		}
	}
	run(func(w int) { // one identifier at a time
		for i := range rounds * 4 {
			id := fmt.Sprintf("/id/ark:12345/p%dx%d", w, i)
			write("PUT", id, `{"target": "https://repo.example.org/a"}`, http.StatusCreated)
			write("PATCH", id, `{"meta": {"who": "Ada"}}`, http.StatusOK)
			if i%3 == 0 {
				write("POST", fmt.Sprintf("/withdraw/ark:12345/p%dx%d", w, i), `{"reason": "gone"}`, http.StatusOK)
			}
		}
	})
	run(func(w int) { // bulk and mint
		for i := range rounds {
			var lines []string
			for j := range 20 {
				lines = append(lines, fmt.Sprintf(`{"op": "bind", "id": "ark:12345/b%dx%dx%d", "target": "https://repo.example.org/b"}`, w, i, j))
			}
			write("POST", "/bulk", strings.Join(lines, "\n"), http.StatusOK)
			write("POST", "/mint/ark:12345/x8?n=5", "", http.StatusCreated)
		}
	})
	run(func(w int) { // imports, and retargets with their undo
		for i := range rounds / 4 {
			if w == 0 {
				var entries []string
				var keys []string
				for j := range 2000 {
					key := fmt.Sprintf("ark:12345/i%dx%d", i, j)
					keys = append(keys, key)
					entries = append(entries, fmt.Sprintf(`{"id": %q, "target": "https://repo.example.org/i"}`, key))
				}
				write("POST", "/import", `{"entries": [`+strings.Join(entries, ",")+`]}`, http.StatusOK)
				mu.Lock()
				imported = append(imported, keys...)
				mu.Unlock()
				continue
			}
			var done struct{ Batch uint64 }
			got := write("POST", "/retarget", `{"from": "https://old.example.org/", "to": "https://new.example.org/", "prefix": "ark:12345/r"}`, http.StatusOK)
			if json.Unmarshal([]byte(got), &done) != nil || done.Batch == 0 {
				fail(fmt.Errorf("retarget: %s", got))
				return
			}
			write("POST", fmt.Sprintf("/batches/%d/undo", done.Batch), "", http.StatusOK)
		}
	})
	writing := make(chan struct{})
	go func() {
		wg.Wait()
		close(writing)
	}()
	p := &changesPoller{s: s, limit: 1000, seen: map[uint64]bool{}}
	for polling := true; polling; {
		select {
		case <-writing:
			polling = false
		default:
		}
		if _, err := p.poll(); err != nil {
			t.Fatal(err)
		}
	}
	if len(errs) > 0 {
		t.Fatalf("%d writes failed, the first: %v", len(errs), errs[0])
	}
	// bbolt records an import's history as it merges it, in the
	// background: wait for the last imported key's record, then read to
	// the end.
	last := imported[len(imported)-1]
	testkit.WaitFor(t, "the imports' history", func() bool {
		r := s.Lookup(last)
		return r != nil && len(r.History) == 1
	})
	if _, err := p.poll(); err != nil {
		t.Fatal(err)
	}
	all := apiChanges(s, "since=0", "editor", 1000)
	var missed []uint64
	for _, c := range all {
		if !p.seen[c.Seq] {
			missed = append(missed, c.Seq)
		}
	}
	if len(missed) > 0 {
		t.Errorf("the poller missed %d of %d records, though it always went on from the last seq it saw: %v", len(missed), len(all), missed[:min(len(missed), 20)])
	}
	if len(p.seen) != len(all) {
		t.Errorf("the poller saw %d records, the history holds %d", len(p.seen), len(all))
	}
}

func TestAPIChangesPolledMissNothing(t *testing.T) {
	checkChangesPolled(t, caddytest.StartAPISite(t, "minter ark:12345/x8 .sdddd"))
}

func TestPostgresAPIChangesPolledMissNothing(t *testing.T) {
	checkChangesPolled(t, startPGAPISite(t, "minter ark:12345/x8 .sdddd"))
}
