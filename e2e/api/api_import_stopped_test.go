package api

import (
	"bufio"
	"net/http"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// An import under way when its configuration is replaced (the API
// stopping) keeps nothing and is answered 503 with Retry-After, as a
// store that cannot finish is: the body was good, and the client may
// send it again.
func TestAPIImportStoppedByAReload(t *testing.T) {
	caddytest.OnBothStores(t, func(t *testing.T, s *caddytest.APISite, config string) {
		body := importBody(300000, "r")
		conn := postImport(t, s, body, len(body))
		defer conn.Close()
		time.Sleep(200 * time.Millisecond) // the store is taking the body
		if err := s.Load(config); err != nil {
			t.Fatal(err)
		}
		if err := conn.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("the import ended within 200 ms, before the reload: the test needs a larger body to stop one under way")
		}
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("an import stopped by a reload: %d (Retry-After %q), want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		if got := s.Call("GET", "/id/ark:12345/r0", "editor", ""); got.Status != http.StatusNotFound {
			t.Errorf("the stopped import kept ark:12345/r0: %d", got.Status)
		}
	})
}
