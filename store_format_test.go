package ark

import (
	"compress/gzip"
	be "encoding/binary"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
	bolt "go.etcd.io/bbolt"
)

// A store file written by a version that held bindings as JSON (format
// 1) is served by this one: its identifiers resolve, the API reads and
// changes them with their history, the log says once that the file was
// upgraded, and it reads the same after a restart.
func TestCaddyServesAStoreFileOfTheOldFormat(t *testing.T) {
	s := &apiSite{
		db:    filepath.Join(t.TempDir(), "ark.db"),
		table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	writeGunzipped(t, "store/bolt/testdata/format1.db.gz", s.db)
	ops := newOpsSite(t)
	s.site = ops.site
	if err := s.load(apiSiteBody(s.db, s.table, "")); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		for path, want := range map[string]answer{
			"/ark:12345/x500000001":   {status: http.StatusFound, location: "https://repo.example.org/x500000001"},
			"/urn:isbn:9780306406157": {status: http.StatusSeeOther, location: "https://books.example.org/x"},
			"/ark:12345/s1":           {status: http.StatusFound, location: "https://example.org/s1"},
			"/ark:12345/d2":           {status: http.StatusGone},
		} {
			if got := s.get(path); got.status != want.status || got.location != want.location {
				t.Errorf("%s: %s: %d %s, want %d %s", when, path, got.status, got.location, want.status, want.location)
			}
		}
	}
	check("opened")
	if n := len(logEntries(t, ops.log, storeUpgraded)); n != 1 {
		t.Errorf("the upgrade of a file of format 1 logged %d times, want once", n)
	}
	r := s.lookup("ark:12345/d1")
	if r == nil || r.Binding.Version != 2 || len(r.History) != 2 || r.History[0].By != "alice" || r.History[1].Old == nil || r.History[1].Old.Meta["who"] != "Ada" {
		t.Fatalf("GET id/ark:12345/d1 of the old file: %+v", r)
	}
	if got := s.call("PUT", "/id/ark:12345/d1", "editor", `{"target": "https://example.org/new"}`, "If-Match", `"2"`); got.status != http.StatusOK {
		t.Fatalf("changing a binding of the old file: %d %s", got.status, got.body)
	}
	if err := s.load(`respond "no store" 200`); err != nil {
		t.Fatal(err)
	}
	if err := s.load(apiSiteBody(s.db, s.table, "")); err != nil {
		t.Fatal(err)
	}
	check("restarted")
	if got := s.get("/ark:12345/d1"); got.status != http.StatusFound || got.location != "https://example.org/new" {
		t.Errorf("restarted: the changed binding answers %d %s", got.status, got.location)
	}
	r = s.lookup("ark:12345/d1")
	if r == nil || r.Binding.Version != 3 || len(r.History) != 3 || r.History[2].Old.Target != "/objects/d1.html" || r.History[2].New.Target != "https://example.org/new" {
		t.Errorf("restarted: GET id/ark:12345/d1: %+v", r)
	}
	if n := len(logEntries(t, ops.log, storeUpgraded)); n != 1 {
		t.Errorf("after a restart, the upgrade is logged %d times in all, want once", n)
	}
}

// A store file of a format newer than this version reads is refused when
// the config loads, naming the file and what to do.
func TestCaddyRefusesAStoreFileOfANewerFormat(t *testing.T) {
	s := startAPISite(t, "")
	if got := s.call("PUT", "/id/ark:12345/kept", "editor", `{"target": "https://repo.example.org/kept"}`); got.status != http.StatusCreated {
		t.Fatalf("bind: %d %s", got.status, got.body)
	}
	if err := s.load(`respond "no store" 200`); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(s.db, 0o600, nil)
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
	err = s.load(apiSiteBody(s.db, s.table, ""))
	if err == nil || !strings.Contains(err.Error(), s.db) || !strings.Contains(err.Error(), "format 99, written by a newer version of caddy-ark") {
		t.Errorf("loading a store file of a newer format: %v; want it refused, naming the file and its format", err)
	}
}

// writeGunzipped writes the gzip file src, uncompressed, to dst.
func writeGunzipped(t *testing.T, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The log message of a store file upgraded to the current format.
const storeUpgraded = "store file upgraded to a new format: what changes is written in it from now on, which older versions of caddy-ark cannot read (to go back to one, dump the store with caddy ark store dump --version 1, which leaves the statistics out only when given --without-stats, and load that with the older version's store load)"
