package store

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// storeNotReady is the log message of a readiness check that found the
// store unavailable, with the details the answer leaves out.
const storeNotReady = "readiness check: the store is unavailable"

// replicationField is the replication object of a readiness answer of a
// PostgreSQL store, which says what the node knows of its servers (the
// failover tests, e2e/failover, check it).
var replicationField = regexp.MustCompile(`,"replication":\{[^{}]*\}`)

// withoutReplication is a readiness answer without its replication object.
func withoutReplication(body string) string { return replicationField.ReplaceAllString(body, "") }

// expectNotReadyQuietly checks an answer of the ready path for a store
// that does not answer: 503, not ready for the store, in general terms,
// and none of secrets (a server's address and user, a file's path),
// which anyone may read.
func expectNotReadyQuietly(t *testing.T, got caddytest.Answer, secrets ...string) {
	t.Helper()
	unavailable := `{"ready":false,"store":"unavailable","tables":"ok","error":"the store is unavailable"}` + "\n"
	circuitOpen := `{"ready":false,"store":"circuit_open","tables":"ok","error":"the store stopped answering: it is not asked until a probe gets an answer"}` + "\n"
	if got.Status != http.StatusServiceUnavailable || got.Header.Get("Retry-After") == "" || withoutReplication(got.Body) != unavailable && withoutReplication(got.Body) != circuitOpen {
		t.Errorf("ready: %d %q; want 503, the store unavailable", got.Status, got.Body)
	}
	for _, s := range secrets {
		if strings.Contains(got.Body, s) {
			t.Errorf("ready tells anyone %q: %s", s, got.Body)
		}
	}
}

// TestReadyNoticesADeletedStoreFile deletes the bbolt file under a site:
// every write is refused (503, saying why, to the API's key), and the
// readiness check says not ready, without the file's path, which goes to
// the log.
func TestReadyNoticesADeletedStoreFile(t *testing.T) {
	s := &caddytest.APISite{
		DB:    filepath.Join(t.TempDir(), "secret-dir", "ark.db"),
		Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}
	ops := caddytest.NewOpsSite(t)
	s.Site = ops.Site
	if err := s.Load(caddytest.APISiteBody(s.DB, s.Table, "ready /healthz/ark")); err != nil {
		t.Fatal(err)
	}
	if got := s.Get("/healthz/ark"); got.Status != http.StatusOK || got.Body != `{"ready":true,"store":"ok","tables":"ok"}`+"\n" {
		t.Fatalf("ready with the file in place: %d %s", got.Status, got.Body)
	}
	if err := os.Remove(s.DB); err != nil {
		t.Fatal(err)
	}
	expectNotReadyQuietly(t, s.Get("/healthz/ark"), s.DB, "secret-dir")
	got := s.Call("PUT", "/id/ark:12345/lost", "editor", `{"target": "https://repo.example.org/lost"}`)
	if got.Status != http.StatusServiceUnavailable || !strings.Contains(got.Body, "deleted or replaced") {
		t.Errorf("a write after the file was deleted: %d %s; want 503 saying why", got.Status, got.Body)
	}
	testkit.WaitFor(t, "the readiness check's reason in the log", func() bool {
		for _, e := range caddytest.LogEntries(t, ops.Log, storeNotReady) {
			if strings.Contains(fmt.Sprint(e["error"]), s.DB) {
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
	ops := caddytest.NewOpsSite(t)
	body := strings.Replace(caddytest.PGSiteBody(dsn, tablePath), "minter ark:12345/b3 .sdddd", "minter ark:12345/b3 .sdddd\n\t\tready /healthz/ark", 1)
	if err := ops.Load(body); err != nil {
		t.Fatal(err)
	}
	s := &caddytest.APISite{Site: ops.Site, Table: tablePath}
	if got := s.Get("/healthz/ark"); got.Status != http.StatusOK {
		t.Fatalf("ready with PostgreSQL up: %d %s", got.Status, got.Body)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	for range 3 { // the first may find a connection ended, the next fail to connect
		expectNotReadyQuietly(t, s.Get("/healthz/ark"), secrets...)
	}
	for _, accept := range []string{"application/json", "text/html"} {
		got := s.Do(http.MethodGet, "/ark:12345/b3never", http.Header{"Accept": {accept}})
		if got.Status != http.StatusServiceUnavailable {
			t.Errorf("an identifier with PostgreSQL stopped (%s): %d %s", accept, got.Status, got.Body)
		}
		for _, secret := range secrets {
			if strings.Contains(got.Body, secret) {
				t.Errorf("the refusal of an identifier (%s) tells anyone %q: %s", accept, secret, got.Body)
			}
		}
	}
	testkit.WaitFor(t, "the readiness check's reason in the log", func() bool {
		for _, e := range caddytest.LogEntries(t, ops.Log, storeNotReady) {
			if e["error"] != "" {
				return true
			}
		}
		return false
	})
}
