package ark

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// A bbolt store file damaged on disk (random bytes over its pages, as a
// failing disk writes them) is refused when Caddy loads the config, with
// an error that says so: served from, its reads would panic, some bound
// identifiers would answer 404, and its next growth could kill the
// process. skip_check opens it unchecked, for files too large to check.
func TestCaddyRefusesADamagedStoreFile(t *testing.T) {
	s := startAPISite(t, "")
	for i := range 2000 {
		if got := s.call("PUT", fmt.Sprintf("/id/ark:12345/b%d", i), "editor", fmt.Sprintf(`{"target": "https://repo.example.org/%d"}`, i)); got.status != http.StatusCreated && got.status != http.StatusOK {
			t.Fatalf("bind %d: %d %s", i, got.status, got.body)
		}
	}
	if err := s.load(`respond "no store" 200`); err != nil { // closes the store file
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.db)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	if len(data) < 16*page {
		t.Fatalf("store file of %d bytes: too small to damage past its meta pages", len(data))
	}
	rng := rand.New(rand.NewPCG(21, 7))
	for p := 2; p < len(data)/page; p += 3 { // meta pages 0 and 1 stay: bbolt opens the file
		for i := range 64 {
			data[p*page+512+i] = byte(rng.Uint32())
		}
	}
	if err := os.WriteFile(s.db, data, 0o600); err != nil {
		t.Fatal(err)
	}
	err = s.load(apiSiteBody(s.db, s.table, ""))
	if err == nil || !strings.Contains(err.Error(), "the file is damaged") || !strings.Contains(err.Error(), s.db) {
		t.Fatalf("loading a damaged store file: %v; want it refused as damaged, naming the file", err)
	}
	// skip_check opens it unchecked. Reading its bindings at load (the
	// one-source check) may fail; if not, a read that panics inside bbolt
	// answers 503, never 404 nor a dropped connection, and so does every
	// read after it.
	err = s.load(strings.Replace(apiSiteBody(s.db, s.table, ""), "store bolt "+s.db, "store bolt "+s.db+" {\n\t\t\tskip_check\n\t\t}", 1))
	if err != nil {
		if strings.Contains(err.Error(), "consistency check") {
			t.Errorf("skip_check: %v; want the file opened unchecked", err)
		}
		return
	}
	var notFound int
	for i := range 2000 {
		got := s.get(fmt.Sprintf("/ark:12345/b%d", i))
		switch got.status {
		case http.StatusFound, http.StatusServiceUnavailable:
		case http.StatusNotFound:
			notFound++
		default:
			t.Fatalf("ark:12345/b%d: %d %s", i, got.status, got.body)
		}
	}
	if notFound > 0 {
		t.Errorf("%d bound identifiers of the damaged store answer 404", notFound)
	}
}

// A store file deleted while Caddy has it open would take every later
// write with it, and the next start would make a new, empty store: writes
// are refused with 503 and a reason instead, reads go on, and the start
// that creates the file new says so in the log.
func TestCaddyRefusesWritesToADeletedStoreFile(t *testing.T) {
	s := &apiSite{
		db:    filepath.Join(t.TempDir(), "ark.db"),
		table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	ops := newOpsSite(t)
	s.site = ops.site
	if err := s.load(apiSiteBody(s.db, s.table, "")); err != nil {
		t.Fatal(err)
	}
	if n := len(logEntries(t, ops.log, storeCreatedNew)); n != 1 {
		t.Errorf("a new store file: logged %d times, want once", n)
	}
	if got := s.call("PUT", "/id/ark:12345/kept", "editor", `{"target": "https://repo.example.org/kept"}`); got.status != http.StatusCreated {
		t.Fatalf("bind: %d %s", got.status, got.body)
	}
	if err := os.Remove(s.db); err != nil {
		t.Fatal(err)
	}
	got := s.call("PUT", "/id/ark:12345/lost", "editor", `{"target": "https://repo.example.org/lost"}`)
	if got.status != http.StatusServiceUnavailable || !strings.Contains(got.body, "deleted or replaced") || got.header.Get("Retry-After") == "" {
		t.Errorf("a write after the file was deleted: %d %s; want 503 saying why", got.status, got.body)
	}
	if got := s.get("/ark:12345/kept"); got.status != http.StatusFound {
		t.Errorf("a read after the file was deleted: %d %s", got.status, got.body)
	}
	testkit.WaitFor(t, "the deletion to be logged", func() bool { return len(logEntries(t, ops.log, storeGone)) == 1 })
}

// The log messages of a store file created new and deleted while open.
const (
	storeCreatedNew = "store file created new: it holds no bindings, counters or history; if a store was expected here, stop Caddy and restore it"
	storeGone       = "store file deleted or replaced while open: writes are refused (503); restore the file and restart Caddy"
)
