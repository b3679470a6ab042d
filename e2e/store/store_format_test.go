package store

import (
	be "encoding/binary"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
	bolt "go.etcd.io/bbolt"
)

// A store file written by a version that held bindings as JSON (format
// 1) is served by this one: its identifiers resolve, the API reads and
// changes them with their history, the log says once that the file was
// upgraded, and it reads the same after a restart.
func TestCaddyServesAStoreFileOfTheOldFormat(t *testing.T) {
	t.Chdir(caddytest.ModuleRoot(t))
	s := &caddytest.APISite{
		DB:    filepath.Join(t.TempDir(), "ark.db"),
		Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	testkit.Gunzip(t, "store/bolt/testdata/format1.db.gz", s.DB)
	ops := caddytest.NewOpsSite(t)
	s.Site = ops.Site
	if err := s.Load(caddytest.APISiteBody(s.DB, s.Table, "")); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		for path, want := range map[string]caddytest.Answer{
			"/ark:12345/x500000001":   {Status: http.StatusFound, Location: "https://repo.example.org/x500000001"},
			"/urn:isbn:9780306406157": {Status: http.StatusSeeOther, Location: "https://books.example.org/x"},
			"/ark:12345/s1":           {Status: http.StatusFound, Location: "https://example.org/s1"},
			"/ark:12345/d2":           {Status: http.StatusGone},
		} {
			if got := s.Get(path); got.Status != want.Status || got.Location != want.Location {
				t.Errorf("%s: %s: %d %s, want %d %s", when, path, got.Status, got.Location, want.Status, want.Location)
			}
		}
	}
	check("opened")
	if n := len(caddytest.LogEntries(t, ops.Log, storeUpgraded)); n != 1 {
		t.Errorf("the upgrade of a file of format 1 logged %d times, want once", n)
	}
	r := s.Lookup("ark:12345/d1")
	if r == nil || r.Binding.Version != 2 || len(r.History) != 2 || r.History[0].By != "alice" || r.History[1].Old == nil || r.History[1].Old.Meta["who"] != "Ada" {
		t.Fatalf("GET id/ark:12345/d1 of the old file: %+v", r)
	}
	if got := s.Call("PUT", "/id/ark:12345/d1", "editor", `{"target": "https://example.org/new"}`, "If-Match", `"2"`); got.Status != http.StatusOK {
		t.Fatalf("changing a binding of the old file: %d %s", got.Status, got.Body)
	}
	if err := s.Load(`respond "no store" 200`); err != nil {
		t.Fatal(err)
	}
	if err := s.Load(caddytest.APISiteBody(s.DB, s.Table, "")); err != nil {
		t.Fatal(err)
	}
	check("restarted")
	if got := s.Get("/ark:12345/d1"); got.Status != http.StatusFound || got.Location != "https://example.org/new" {
		t.Errorf("restarted: the changed binding answers %d %s", got.Status, got.Location)
	}
	r = s.Lookup("ark:12345/d1")
	if r == nil || r.Binding.Version != 3 || len(r.History) != 3 || r.History[2].Old.Target != "/objects/d1.html" || r.History[2].New.Target != "https://example.org/new" {
		t.Errorf("restarted: GET id/ark:12345/d1: %+v", r)
	}
	if n := len(caddytest.LogEntries(t, ops.Log, storeUpgraded)); n != 1 {
		t.Errorf("after a restart, the upgrade is logged %d times in all, want once", n)
	}
}

// A store file of a format newer than this version reads is refused when
// the config loads, naming the file and what to do.
func TestCaddyRefusesAStoreFileOfANewerFormat(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	if got := s.Call("PUT", "/id/ark:12345/kept", "editor", `{"target": "https://repo.example.org/kept"}`); got.Status != http.StatusCreated {
		t.Fatalf("bind: %d %s", got.Status, got.Body)
	}
	if err := s.Load(`respond "no store" 200`); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(s.DB, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("file")).Put([]byte("format"), be.BigEndian.AppendUint64(nil, 99))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	err = s.Load(caddytest.APISiteBody(s.DB, s.Table, ""))
	if err == nil || !strings.Contains(err.Error(), s.DB) || !strings.Contains(err.Error(), "format 99, written by a newer version of caddy-ark") {
		t.Errorf("loading a store file of a newer format: %v; want it refused, naming the file and its format", err)
	}
}

// The log message of a store file upgraded to the current format.
const storeUpgraded = "store file upgraded to a new format: what changes is written in it from now on, which older versions of caddy-ark cannot read (to go back to one, dump the store with caddy ark store dump --version 1, which leaves the statistics out only when given --without-stats, and load that with the older version's store load)"
