package store

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// A bbolt store file damaged on disk (random bytes over its pages, as a
// failing disk writes them) is refused when Caddy loads the config, with
// an error that says so: served from, its reads would panic, some bound
// identifiers would answer 404, and its next growth could kill the
// process. skip_check opens it unchecked, for files too large to check.
func TestCaddyRefusesADamagedStoreFile(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	for i := range 2000 {
		if got := s.Call("PUT", fmt.Sprintf("/id/ark:12345/b%d", i), "editor", fmt.Sprintf(`{"target": "https://repo.example.org/%d"}`, i)); got.Status != http.StatusCreated && got.Status != http.StatusOK {
			t.Fatalf("bind %d: %d %s", i, got.Status, got.Body)
		}
	}
	if err := s.Load(`respond "no store" 200`); err != nil { // closes the store file
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.DB)
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
	if err := os.WriteFile(s.DB, data, 0o600); err != nil {
		t.Fatal(err)
	}
	err = s.Load(caddytest.APISiteBody(s.DB, s.Table, ""))
	if err == nil || !strings.Contains(err.Error(), "the file is damaged") || !strings.Contains(err.Error(), s.DB) {
		t.Fatalf("loading a damaged store file: %v; want it refused as damaged, naming the file", err)
	}
	// skip_check opens it unchecked. Reading its bindings at load (the
	// one-source check) may fail; if not, a read that panics inside bbolt
	// answers 503, never 404 nor a dropped connection, and so does every
	// read after it.
	err = s.Load(strings.Replace(caddytest.APISiteBody(s.DB, s.Table, ""), "store bolt "+s.DB, "store bolt "+s.DB+" {\n\t\t\tskip_check\n\t\t}", 1))
	if err != nil {
		if strings.Contains(err.Error(), "consistency check") {
			t.Errorf("skip_check: %v; want the file opened unchecked", err)
		}
		return
	}
	var notFound int
	for i := range 2000 {
		got := s.Get(fmt.Sprintf("/ark:12345/b%d", i))
		switch got.Status {
		case http.StatusFound, http.StatusServiceUnavailable:
		case http.StatusNotFound:
			notFound++
		default:
			t.Fatalf("ark:12345/b%d: %d %s", i, got.Status, got.Body)
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
	s := &caddytest.APISite{
		DB:    filepath.Join(t.TempDir(), "ark.db"),
		Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	ops := caddytest.NewOpsSite(t)
	s.Site = ops.Site
	if err := s.Load(caddytest.APISiteBody(s.DB, s.Table, "")); err != nil {
		t.Fatal(err)
	}
	if n := len(caddytest.LogEntries(t, ops.Log, storeCreatedNew)); n != 1 {
		t.Errorf("a new store file: logged %d times, want once", n)
	}
	if got := s.Call("PUT", "/id/ark:12345/kept", "editor", `{"target": "https://repo.example.org/kept"}`); got.Status != http.StatusCreated {
		t.Fatalf("bind: %d %s", got.Status, got.Body)
	}
	if err := os.Remove(s.DB); err != nil {
		t.Fatal(err)
	}
	got := s.Call("PUT", "/id/ark:12345/lost", "editor", `{"target": "https://repo.example.org/lost"}`)
	if got.Status != http.StatusServiceUnavailable || !strings.Contains(got.Body, "deleted or replaced") || got.Header.Get("Retry-After") == "" {
		t.Errorf("a write after the file was deleted: %d %s; want 503 saying why", got.Status, got.Body)
	}
	if got := s.Get("/ark:12345/kept"); got.Status != http.StatusFound {
		t.Errorf("a read after the file was deleted: %d %s", got.Status, got.Body)
	}
	testkit.WaitFor(t, "the deletion to be logged", func() bool { return len(caddytest.LogEntries(t, ops.Log, storeGone)) == 1 })
}

// The log messages of a store file created new and deleted while open.
const (
	storeCreatedNew = "store file created new: it holds no bindings, counters or history; if a store was expected here, stop Caddy and restore it"
	storeGone       = "store file deleted or replaced while open: writes are refused (503); restore the file and restart Caddy"
)
