package tables

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A changed table file is applied by a plain `caddy reload` of the same
// Caddyfile, which Caddy skips when the adapted config is unchanged: the
// adapter's table_stamp makes it change (issue 10, item 1).
func TestPlainReloadAppliesChangedTable(t *testing.T) {
	dir := t.TempDir()
	tablePath := filepath.Join(dir, "arks.json")
	write := func(body string, mtime time.Time) {
		if err := os.WriteFile(tablePath, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(tablePath, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"entries": [{"id": "ark:12345/a1", "target": "https://repo.example.org/a1"}]}`, time.Unix(1700000000, 0))
	body := "ark {\n\t\ttable " + tablePath + "\n\t}"
	s := caddytest.StartSite(t, body)
	if got := s.Get("/ark:12345/b2"); got.Status != http.StatusNotFound {
		t.Fatalf("before: got %d, want 404", got.Status)
	}
	write(`{"entries": [{"id": "ark:12345/a1", "target": "https://repo.example.org/a1"}, {"id": "ark:12345/b2", "target": "https://repo.example.org/b2"}]}`, time.Unix(1700000100, 0))
	// What `caddy reload` does: adapt the same Caddyfile, load it unforced.
	cfg, err := caddytest.AdaptCaddyfile(s.Caddyfile(body), filepath.Join(dir, "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := caddytest.LoadConfig(cfg, false); err != nil {
		t.Fatal(err)
	}
	// A kept-alive connection may still reach the old server, which Caddy
	// stops in the background (it answers 503 once its handler is gone).
	caddytest.Client.CloseIdleConnections()
	if got := s.Get("/ark:12345/b2"); got.Status != http.StatusFound || got.Location != "https://repo.example.org/b2" {
		t.Errorf("after caddy reload: got %d %q, want the new entry", got.Status, got.Location)
	}
}
