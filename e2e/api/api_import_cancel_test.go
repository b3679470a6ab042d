package api

import (
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// An import whose client goes away, mid-body or while the store takes
// the whole body, keeps nothing, and the store takes a write within a
// second.
func TestAPIImportClientGone(t *testing.T) {
	t.Run("mid-body", func(t *testing.T) { testImportClientGone(t, false) })
	t.Run("after the body", func(t *testing.T) { testImportClientGone(t, true) })
}

func testImportClientGone(t *testing.T, whole bool) {
	s := caddytest.StartAPISite(t, "")
	body := importBody(120000, "g") // more than two of the store's chunks
	length := len(body)
	if !whole {
		length = 64 << 20 // the body never ends
	}
	conn := postImport(t, s, body, length)
	if !whole {
		time.Sleep(500 * time.Millisecond) // the server stages what it has read
	}
	conn.Close()
	gone := time.Now()
	for {
		got := s.Call("PUT", "/id/ark:12345/after", "editor", `{"target": "https://repo.example.org/after"}`)
		if got.Status/100 == 2 {
			break
		}
		if time.Since(gone) > time.Second {
			t.Fatalf("a write a second after the client went: %d %s", got.Status, got.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("a write succeeded %v after the client went", time.Since(gone))
	time.Sleep(300 * time.Millisecond) // an import that commits late would show now
	export := s.Call("GET", "/export", "reader", "")
	if strings.Contains(export.Body, "ark:12345/g") {
		t.Errorf("the abandoned import kept bindings: %.200s", export.Body)
	}
	for _, id := range []string{"ark:12345/g0", "ark:12345/g60000"} {
		if got := s.Call("GET", "/id/"+id, "editor", ""); got.Status != 404 {
			t.Errorf("GET %s after the abandoned import: %d, want 404", id, got.Status)
		}
	}
}
