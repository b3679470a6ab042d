package ark

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// storeNotReady is the log message of a readiness check that found the
// store unavailable, with the details the answer leaves out.
const storeNotReady = "readiness check: the store is unavailable"

// expectNotReadyQuietly checks an answer of the ready path for a store
// that does not answer: 503, not ready for the store, in general terms,
// and none of secrets (a server's address and user, a file's path),
// which anyone may read.
func expectNotReadyQuietly(t *testing.T, got answer, secrets ...string) {
	t.Helper()
	unavailable := `{"ready":false,"store":"unavailable","tables":"ok","error":"the store is unavailable"}` + "\n"
	circuitOpen := `{"ready":false,"store":"circuit_open","tables":"ok","error":"the store stopped answering: it is not asked until a probe gets an answer"}` + "\n"
	if got.status != http.StatusServiceUnavailable || got.header.Get("Retry-After") == "" || got.body != unavailable && got.body != circuitOpen {
		t.Errorf("ready: %d %q; want 503, the store unavailable", got.status, got.body)
	}
	for _, s := range secrets {
		if strings.Contains(got.body, s) {
			t.Errorf("ready tells anyone %q: %s", s, got.body)
		}
	}
}

// TestReadyNoticesADeletedStoreFile deletes the bbolt file under a site:
// every write is refused (503, saying why, to the API's key), and the
// readiness check says not ready, without the file's path, which goes to
// the log.
func TestReadyNoticesADeletedStoreFile(t *testing.T) {
	s := &apiSite{
		db:    filepath.Join(t.TempDir(), "secret-dir", "ark.db"),
		table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	ops := newOpsSite(t)
	s.site = ops.site
	if err := s.load(apiSiteBody(s.db, s.table, "ready /healthz/ark")); err != nil {
		t.Fatal(err)
	}
	if got := s.get("/healthz/ark"); got.status != http.StatusOK || got.body != `{"ready":true,"store":"ok","tables":"ok"}`+"\n" {
		t.Fatalf("ready with the file in place: %d %s", got.status, got.body)
	}
	if err := os.Remove(s.db); err != nil {
		t.Fatal(err)
	}
	expectNotReadyQuietly(t, s.get("/healthz/ark"), s.db, "secret-dir")
	got := s.call("PUT", "/id/ark:12345/lost", "editor", `{"target": "https://repo.example.org/lost"}`)
	if got.status != http.StatusServiceUnavailable || !strings.Contains(got.body, "deleted or replaced") {
		t.Errorf("a write after the file was deleted: %d %s; want 503 saying why", got.status, got.body)
	}
	testkit.WaitFor(t, "the readiness check's reason in the log", func() bool {
		for _, e := range logEntries(t, ops.log, storeNotReady) {
			if strings.Contains(fmt.Sprint(e["error"]), s.db) {
				return true
			}
		}
		return false
	})
}

// TestReadyKeepsPostgresDetailsFromAnyone stops PostgreSQL under a site:
// the readiness check and the refusal of an identifier say that the store
// is unavailable, never the server's user, database, address or port,
// which go to the log.
func TestReadyKeepsPostgresDetailsFromAnyone(t *testing.T) {
	c := testkit.StartPostgres(t)
	dsn := c.CreateDB(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"user=", "database=", strings.TrimPrefix(u.Path, "/"), u.Host, ":" + u.Port()}
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	ops := newOpsSite(t)
	body := strings.Replace(pgSiteBody(dsn, tablePath), "minter ark:12345/b3 .sdddd", "minter ark:12345/b3 .sdddd\n\t\tready /healthz/ark", 1)
	if err := ops.load(body); err != nil {
		t.Fatal(err)
	}
	s := &apiSite{site: ops.site, table: tablePath}
	if got := s.get("/healthz/ark"); got.status != http.StatusOK {
		t.Fatalf("ready with PostgreSQL up: %d %s", got.status, got.body)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	for range 3 { // the first may find a connection ended, the next fail to connect
		expectNotReadyQuietly(t, s.get("/healthz/ark"), secrets...)
	}
	for _, accept := range []string{"application/json", "text/html"} {
		got := s.do(http.MethodGet, "/ark:12345/b3never", http.Header{"Accept": {accept}})
		if got.status != http.StatusServiceUnavailable {
			t.Errorf("an identifier with PostgreSQL stopped (%s): %d %s", accept, got.status, got.body)
		}
		for _, secret := range secrets {
			if strings.Contains(got.body, secret) {
				t.Errorf("the refusal of an identifier (%s) tells anyone %q: %s", accept, secret, got.body)
			}
		}
	}
	testkit.WaitFor(t, "the readiness check's reason in the log", func() bool {
		for _, e := range logEntries(t, ops.log, storeNotReady) {
			if e["error"] != "" {
				return true
			}
		}
		return false
	})
}
