package serve

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// TestReadyFlipsWithADamagedTable asks the ready path of a site serving a
// compiled table: ready (200) while the table is sound, not ready (503,
// "tables": "damaged") once a lookup found it changed in place, and ready
// again once a good file is renamed over it and watch swaps it in. A
// ready path where identifiers or the API are answered is refused.
func TestReadyFlipsWithADamagedTable(t *testing.T) {
	path := caddytest.CompileFile(t, testkit.EveryField)
	s := caddytest.StartOpsSite(t, "ark {\n\ttable "+path+"\n\tforeign 404\n\twatch 100ms\n\tready /healthz/ark\n}")
	expectReady := func(status int, body string) {
		t.Helper()
		got := s.Get("/healthz/ark")
		if got.Status != status || got.Body != body+"\n" || got.Header.Get("Content-Type") != "application/json" || got.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("ready: %d %q %v; want %d %s", got.Status, got.Body, got.Header, status, body)
		}
	}
	expectReady(http.StatusOK, `{"ready":true,"store":"none","tables":"ok"}`)
	if got := s.Do(http.MethodPost, "/healthz/ark", nil); got.Status != http.StatusMethodNotAllowed {
		t.Errorf("POST to the ready path: %d", got.Status)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte("https://repo.example.org/x?"))
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil || at < 0 {
		t.Fatal(at, err)
	}
	if _, err := f.WriteAt([]byte("H"), int64(at)); err != nil { // in place: the mapping sees it
		t.Fatal(err)
	}
	f.Close()
	if got := s.Get("/ark:12345/x5wf6789"); got.Status != http.StatusServiceUnavailable {
		t.Fatalf("the damaged record: %d", got.Status)
	}
	expectReady(http.StatusServiceUnavailable, `{"ready":false,"store":"none","tables":"damaged","error":"the table file is damaged"}`)

	good := filepath.Join(filepath.Dir(path), "good.arkt")
	if _, err := table.Compile([]string{testkit.WriteFile(t, "src.json", testkit.EveryField)}, good); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(good, path); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "ready again after a good table is renamed in", func() bool { return s.Get("/healthz/ark").Status == http.StatusOK })
	if got := s.Get("/ark:12345/x5wf6789"); got.Status != http.StatusFound {
		t.Errorf("after the good table: %d", got.Status)
	}

	for _, p := range []string{"/ark:12345/ready", "healthz", "/api/ark/ready"} {
		err := s.Load("ark {\n\tready " + p + "\n\tapi /api/ark {\n\t\tkey k " + caddytest.KeyHash("k") + " read:ark:12345\n\t}\n}")
		if err == nil || !strings.Contains(err.Error(), "ready") {
			t.Errorf("ready %s: %v; want refused", p, err)
		}
	}
}
