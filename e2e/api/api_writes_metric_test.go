package api

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// caddy_ark_api_writes_total counts the identifiers each API key changed,
// once the store has them: a bind, each line of a bulk that was made, each
// name minted; a refused write counts nothing.
func TestAPIWritesCountedByWriter(t *testing.T) {
	ops := caddytest.NewOpsSite(t)
	tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
	if err := ops.Load(caddytest.APISiteBody(filepath.Join(t.TempDir(), "ark.db"), tablePath, "minter ark:12345/x5 .sddd")); err != nil {
		t.Fatal(err)
	}
	s := &caddytest.APISite{Site: ops.Site, Table: tablePath}
	series := func(writer string) string { return `caddy_ark_api_writes_total{writer="` + writer + `"}` }
	before := ops.Metrics() // the process's counters: other tests write too

	if got := s.Call("PUT", "/id/ark:12345/x5p1", "editor", `{"target": "https://repo.example.org/p1"}`); got.Status != http.StatusCreated {
		t.Fatalf("bind: %d %s", got.Status, got.Body)
	}
	bulk := strings.Join([]string{
		`{"op": "bind", "id": "ark:12345/x5p2", "target": "https://repo.example.org/p2"}`,
		`{"op": "bind", "id": "ark:12345/t1", "target": "https://repo.example.org/t1"}`, // the table's: refused
		`{"op": "bind", "id": "ark:12345/x5p3", "target": "https://repo.example.org/p3"}`,
	}, "\n")
	if got := s.Call("POST", "/bulk", "editor", bulk); got.Status != http.StatusOK {
		t.Fatalf("bulk: %d %s", got.Status, got.Body)
	}
	if got := s.Call("POST", "/mint/ark:12345/x5?n=2", "editor", ""); got.Status != http.StatusCreated {
		t.Fatalf("mint: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PUT", "/id/ark:12345/x5p1", "editor", `{"target": "https://repo.example.org/p1b"}`, "If-Match", `"7"`); got.Status != http.StatusPreconditionFailed {
		t.Fatalf("a bind with a stale If-Match: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PUT", "/id/ark:12345/x5p4", "reader", `{"target": "https://repo.example.org/p4"}`); got.Status != http.StatusForbidden {
		t.Fatalf("a bind by a reader: %d %s", got.Status, got.Body)
	}
	if got := s.Call("PUT", "/id/ark:12345/x5p5", "x5", `{"target": "https://repo.example.org/p5"}`); got.Status != http.StatusCreated {
		t.Fatalf("bind by x5: %d %s", got.Status, got.Body)
	}

	after := ops.Metrics()
	for writer, want := range map[string]float64{"editor": 5, "x5": 1, "reader": 0} {
		if got := after[series(writer)] - before[series(writer)]; got != want {
			t.Errorf("%s grew by %v, not %v", series(writer), got, want)
		}
	}
}
