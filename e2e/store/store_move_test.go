package store

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// storeMinter is the minter of the sites whose stores move.
const storeMinter = "minter ark:12345/x5 .reeddeedk"

// A store filled through the API of a real Caddy moves bolt → PostgreSQL
// → bolt with the real binary, and nothing is lost: each dump is the same
// bytes, statistics included, and the last store serves the same export,
// history, minter sequence and statistics. Loading into a store that
// holds anything is refused. On main there was no way to move a store at
// all, and then the statistics stayed behind.
func TestStoreMovesBoltPostgresBolt(t *testing.T) {
	s := caddytest.StartAPISite(t, storeMinter+"\n\t\tstats")
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/id/ark:12345/m1", `{"target": "https://repo.example.org/m1", "meta": {"who": "Ada", "what": "дневник"}}`},
		{"PUT", "/id/ark:12345/m1", `{"target": "/objects/m1.html", "passthrough": false}`},
		{"PUT", "/id/ark:12345/m2", `{"target": "https://repo.example.org/m2", "status": 303}`},
		{"POST", "/withdraw/ark:12345/m2", `{"reason": "Duplicate of ark:12345/m1"}`},
		{"POST", "/mint/ark:12345/x5?n=3", ""},
		{"POST", "/mint/ark:12345/x5", `{"target": "https://repo.example.org/{id}"}`},
	} {
		if got := s.Call(c.method, c.path, "editor", c.body); got.Status >= 300 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, got.Status, got.Body)
		}
	}
	today := time.Now().UTC()
	caddytest.ResolveAll(s, t, map[string]int{"/ark:12345/t1": 302, "/ark:/12345/t1": 302, "/ark:12345/m2": 410, "/ark:12345/x5nothere": 404, "/ark:54321/elsewhere": 302, "/ark:12345/t1%zz": 400})
	caddytest.ResolveAll(s, t, map[string]int{"/ark:12345/x5nothere": 404})
	export := s.Call("GET", "/export", "editor", "").Body
	history := s.Lookup("ark:12345/m1").History
	period := "?from=" + today.Format(time.DateOnly) + "&to=" + today.AddDate(0, 0, 1).Format(time.DateOnly)
	statsBefore := caddytest.StatsOf(s, "editor", period)
	if statsBefore.Total != 5 || len(statsBefore.NotFound) != 1 || len(statsBefore.Top) == 0 {
		t.Fatalf("the first site's statistics: %+v", statsBefore)
	}
	// Caddy lets go of the file when another config replaces the site's,
	// and writes the statistics it holds.
	caddytest.StartSite(t, `respond "elsewhere" 200`)

	dump := func(args ...string) string {
		t.Helper()
		out, stderr, status := caddytest.RunCaddy(t, "", append([]string{"ark", "store", "dump"}, args...)...)
		if status != 0 {
			t.Fatalf("store dump %v: %s", args, stderr)
		}
		return out
	}
	load := func(in string, args ...string) {
		t.Helper()
		if _, stderr, status := caddytest.RunCaddy(t, in, append([]string{"ark", "store", "load"}, args...)...); status != 0 {
			t.Fatalf("store load %v: %s", args, stderr)
		}
	}
	first, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", s.DB)
	if status != 0 || !strings.Contains(stderr, "statistics rows") {
		t.Fatalf("store dump: status %d, %s", status, stderr)
	}
	if !strings.Contains(first, `"end":{"bindings":6,"changes":8,"counters":1,"stats":`) || strings.Contains(first, `"stats":0}`) ||
		!strings.Contains(first, `{"stat":{"day":"`+today.Format(time.DateOnly)+`","list":"not_found","id":"ark:12345/x5nothere","count":2}}`) ||
		!strings.Contains(first, `"list":"resolutions","outcome":`) { // requests naming none of the site's shoulders
		t.Errorf("the dump of the first store:\n%s", first)
	}
	dsn := testkit.SharedPostgres(t).CreateDB(t)
	if _, stderr, status := caddytest.RunCaddy(t, first, "ark", "store", "load", "--store", dsn, "--schema", "moved"); status != 0 || !strings.Contains(stderr, "statistics rows") {
		t.Fatalf("store load: status %d, %s", status, stderr)
	}
	if again := dump("--store", dsn, "--schema", "moved"); again != first {
		t.Errorf("bolt → PostgreSQL changed the store:\nbolt:\n%s\npostgres:\n%s", first, again)
	}
	viaFile := filepath.Join(t.TempDir(), "moved.ndjson")
	dump("--store", dsn, "--schema", "moved", "-o", viaFile)
	second := filepath.Join(t.TempDir(), "second.db")
	load("", "--store", second, viaFile)
	if again := dump("--store", second); again != first {
		t.Errorf("bolt → PostgreSQL → bolt changed the store:\nfirst:\n%s\nsecond:\n%s", first, again)
	}

	// Into a store that holds anything: refused, and it is left as it was.
	for _, target := range [][]string{{"--store", dsn, "--schema", "moved"}, {"--store", second}} {
		before := dump(target...)
		_, stderr, status := caddytest.RunCaddy(t, first, append([]string{"ark", "store", "load"}, target...)...)
		if status != 1 || !strings.Contains(stderr, "nothing loaded: the store is not empty") {
			t.Errorf("load into %v, not empty: status %d, %s", target, status, stderr)
		}
		if after := dump(target...); after != before {
			t.Errorf("a refused load changed %v", target)
		}
	}
	// A dump cut short loads nothing; a bolt file that is not there is
	// not made by dump.
	cut := filepath.Join(t.TempDir(), "cut.db")
	if _, stderr, status := caddytest.RunCaddy(t, first[:len(first)/2], "ark", "store", "load", "--store", cut); status != 1 || !strings.Contains(stderr, "nothing loaded") {
		t.Errorf("a dump cut short: status %d, %s", status, stderr)
	}
	if got := dump("--store", cut); !strings.Contains(got, `"end":{"bindings":0,"changes":0,"counters":0,"stats":0}`) {
		t.Errorf("a dump cut short kept something:\n%s", got)
	}
	missing := filepath.Join(t.TempDir(), "missing.db")
	if _, _, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", missing); status != 1 {
		t.Errorf("dump of a missing file: status %d", status)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("dump made the missing file: %v", err)
	}

	// The moved store serves what the first did, and goes on from it.
	moved := &caddytest.APISite{DB: second, Table: s.Table}
	moved.Site = caddytest.StartSite(t, caddytest.APISiteBody(second, s.Table, storeMinter+"\n\t\tstats"))
	statsBefore.Unwritten = 0 // written to the store since
	if got := caddytest.StatsOf(moved, "editor", period); !reflect.DeepEqual(got, statsBefore) {
		t.Errorf("the moved store's statistics:\n%+v\nthe first's:\n%+v", got, statsBefore)
	}
	if got := moved.Call("GET", "/export", "editor", "").Body; got != export {
		t.Errorf("the moved store exports:\n%s\nthe first exported:\n%s", got, export)
	}
	if got := moved.Lookup("ark:12345/m1").History; len(got) != 2 || !got[1].Time.Equal(history[1].Time) || got[1].By != "editor" || got[1].Old.Target != "https://repo.example.org/m1" {
		t.Errorf("the moved history: %+v, was %+v", got, history)
	}
	if got := moved.Get("/ark:12345/m2"); got.Status != http.StatusGone {
		t.Errorf("the moved withdrawal answers %d", got.Status)
	}
	ids := caddytest.Minted(t, moved.Call("POST", "/mint/ark:12345/x5", "editor", ""))
	if len(ids) != 1 || strings.Contains(first, `"`+ids[0]+`"`) {
		t.Errorf("minting after the move gave %v, minted before the move: the counter did not move", ids)
	}
}

// GET backup copies the bolt store of a running Caddy while it is being
// written: each copy is a whole bbolt file that dumps as a store, and it
// holds everything written before the copy began. `caddy ark store
// backup` writes it checked. Only an admin key may. On main there was no
// backup short of stopping Caddy.
func TestAPIBackupWhileWriting(t *testing.T) {
	s := &caddytest.APISite{DB: filepath.Join(t.TempDir(), "ark.db"), Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})}
	// The test keys, and admin, whose secret is admin-secret.
	body := strings.Replace(caddytest.APISiteBody(s.DB, s.Table, ""), "api /api/ark {", "api /api/ark {\n\t\t\tkey admin "+caddytest.KeyHash("admin-secret")+" admin", 1)
	s.Site = caddytest.StartSite(t, body)
	for _, key := range []string{"editor", "reader"} {
		if got := s.Call("GET", "/backup", key, ""); got.Status != http.StatusForbidden {
			t.Errorf("backup with the %s key: %d %s", key, got.Status, got.Body)
		}
	}
	if got := s.Call("POST", "/backup", "admin", ""); got.Status != http.StatusMethodNotAllowed {
		t.Errorf("POST backup: %d", got.Status)
	}

	var written atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := &http.Client{}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			id := "ark:12345/b" + strconv.Itoa(i)
			req, _ := http.NewRequest("PUT", s.Base+"/api/ark/id/"+id, strings.NewReader(`{"target": "https://repo.example.org/`+strconv.Itoa(i)+`", "meta": {"pad": "`+strings.Repeat("p", 2000)+`"}}`))
			req.Header.Set("Authorization", "Bearer editor-secret")
			resp, err := c.Do(req)
			if err != nil || resp.StatusCode != http.StatusCreated {
				t.Errorf("PUT %s during backups: %v %v", id, err, resp)
				return
			}
			resp.Body.Close()
			written.Store(int64(i + 1))
		}
	}()
	for round := range 3 {
		before := int(written.Load())
		got := s.Call("GET", "/backup", "admin", "")
		if got.Status != http.StatusOK || got.Header.Get("Content-Length") != strconv.Itoa(len(got.Body)) {
			t.Fatalf("backup %d: %d, Content-Length %s for %d bytes", round, got.Status, got.Header.Get("Content-Length"), len(got.Body))
		}
		counts := dumpBackup(t, got.Body)
		if counts.Bindings < before || counts.Changes != counts.Bindings {
			t.Errorf("backup %d holds %v; %d bindings were written before it", round, counts, before)
		}
	}
	close(stop)
	wg.Wait()

	t.Setenv("ARK_API_KEY", "admin-secret")
	out := filepath.Join(t.TempDir(), "backup.db")
	_, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "backup", "--api", s.Base+"/api/ark", "-o", out)
	if status != 0 || !strings.Contains(stderr, "checked") {
		t.Fatalf("caddy ark store backup: status %d, %s", status, stderr)
	}
	dumped, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "dump", "--store", out)
	if status != 0 || !strings.Contains(dumped, `"id":"ark:12345/b0"`) {
		t.Errorf("dump of the backup: status %d, %s", status, stderr)
	}
	t.Setenv("ARK_API_KEY", "editor-secret")
	if _, stderr, status := caddytest.RunCaddy(t, "", "ark", "store", "backup", "--api", s.Base+"/api/ark", "-o", filepath.Join(t.TempDir(), "no.db")); status != 1 || !strings.Contains(stderr, "403") {
		t.Errorf("backup with the editor key: status %d, %s", status, stderr)
	}
}

// dumpBackup opens a backup as a bolt store and returns what its dump
// holds, which ReadDump checks whole and in order by loading it.
func dumpBackup(t *testing.T, data string) store.DumpCounts {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "backup.db")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func(path string) *bolt.Store {
		st := &bolt.Store{Path: path}
		if err := st.Provision(caddy.Context{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Cleanup() })
		return st
	}
	var buf bytes.Buffer
	if _, err := store.WriteDump(context.Background(), open(path), &buf); err != nil {
		t.Fatalf("dumping the backup: %v", err)
	}
	counts, err := store.ReadDump(context.Background(), open(filepath.Join(dir, "copy.db")), &buf)
	if err != nil {
		t.Fatalf("the backup's dump does not load: %v", err)
	}
	return counts
}

// A backup of a running bolt store is the whole file: it holds the
// statistics written, which a reload writes, as the store reads them.
func TestAPIBackupHoldsStatistics(t *testing.T) {
	s := &caddytest.APISite{DB: filepath.Join(t.TempDir(), "ark.db"), Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})}
	body := strings.Replace(caddytest.APISiteBody(s.DB, s.Table, "stats"), "api /api/ark {", "api /api/ark {\n\t\t\tkey admin "+caddytest.KeyHash("admin-secret")+" admin", 1)
	s.Site = caddytest.StartSite(t, body)
	caddytest.ResolveAll(s, t, map[string]int{"/ark:12345/t1": 302, "/ark:12345/x5nothere": 404})
	caddytest.ResolveAll(s, t, map[string]int{"/ark:12345/x5nothere": 404})
	if err := s.Load(body); err != nil { // writes the counts
		t.Fatal(err)
	}
	got := s.Call("GET", "/backup", "admin", "")
	if got.Status != http.StatusOK {
		t.Fatalf("backup: %d %s", got.Status, got.Body)
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(path, []byte(got.Body), 0o600); err != nil {
		t.Fatal(err)
	}
	backup := &bolt.Store{Path: path}
	if err := backup.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backup.Cleanup() })
	today := time.Now().UTC()
	st, err := backup.ReadStats(context.Background(), today.AddDate(0, 0, -1).Format(time.DateOnly), today.AddDate(0, 0, 1).Format(time.DateOnly))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.NotFound) != 1 || st.NotFound[0].ID != "ark:12345/x5nothere" || st.NotFound[0].Count != 2 || len(st.Top) != 1 || len(st.Resolutions) != 2 {
		t.Errorf("the backup's statistics: %+v", st)
	}
}
