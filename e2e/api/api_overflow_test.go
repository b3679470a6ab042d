package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// TestAPINumbersPastTheirRange asks the API with numbers at and past the
// ends of their ranges, on a bbolt store and on PostgreSQL, which answer
// alike: since the last sequence number a uint64 holds reads nothing,
// with no Link (it never wraps around to the whole history); a number
// too large to read is a 400 naming the parameter; a batch or a version
// that cannot exist is 404 or 412.
func TestAPINumbersPastTheirRange(t *testing.T) {
	for _, backend := range []struct {
		name  string
		start func(t *testing.T) *caddytest.APISite
	}{
		{"bolt", func(t *testing.T) *caddytest.APISite { return caddytest.StartAPISite(t, "minter ark:12345/m1 .sdd") }},
		{"postgres", func(t *testing.T) *caddytest.APISite { return startPGAPISite(t, "minter ark:12345/m1 .sdd") }},
	} {
		t.Run(backend.name, func(t *testing.T) {
			s := backend.start(t)
			for i := range 3 {
				if got := s.Call("PUT", "/id/ark:12345/n"+string(rune('a'+i)), "editor", `{"target": "https://repo.example.org/n"}`); got.Status != http.StatusCreated {
					t.Fatalf("bind: %d %s", got.Status, got.Body)
				}
			}
			for _, since := range []string{"9223372036854775807", "9223372036854775808", "18446744073709551614", "18446744073709551615"} {
				got := s.Call("GET", "/changes?since="+since+"&limit=1", "editor", "")
				if got.Status != http.StatusOK || got.Body != "" || got.Header.Get("Link") != "" {
					t.Errorf("GET changes?since=%s: %d Link %q %q; want 200, nothing, no Link", since, got.Status, got.Header.Get("Link"), got.Body)
				}
			}
			for _, c := range []struct{ path, param string }{
				{"/changes?since=18446744073709551616", "since"},
				{"/changes?limit=18446744073709551616", "limit"},
				{"/changes?limit=9223372036854775808", "limit"},
				{"/changes?limit=-1", "limit"},
				{"/ids?limit=18446744073709551616", "limit"},
				{"/ids?limit=4294967297", "limit"},
			} {
				got := s.Call("GET", c.path, "editor", "")
				if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, c.param) {
					t.Errorf("GET %s: %d %s; want 400 naming %s", c.path, got.Status, got.Body, c.param)
				}
			}
			for _, n := range []string{"18446744073709551617", "4294967297", "-1"} {
				if got := s.Call("POST", "/mint/ark:12345/m1?n="+n, "editor", ""); got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "n="+n) {
					t.Errorf("POST mint/ark:12345/m1?n=%s: %d %s; want 400 naming n", n, got.Status, got.Body)
				}
			}
			for _, batch := range []string{"9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616"} {
				if got := s.Call("POST", "/batches/"+batch+"/undo", "editor", ""); got.Status != http.StatusNotFound {
					t.Errorf("POST batches/%s/undo: %d %s; want 404", batch, got.Status, got.Body)
				}
			}
			for _, version := range []string{"9223372036854775808", "18446744073709551615"} {
				got := s.Call("PUT", "/id/ark:12345/na", "editor", `{"target": "https://repo.example.org/m"}`, "If-Match", `"`+version+`"`)
				if got.Status != http.StatusPreconditionFailed {
					t.Errorf("PUT with If-Match %s: %d %s; want 412", version, got.Status, got.Body)
				}
			}
		})
	}
}
