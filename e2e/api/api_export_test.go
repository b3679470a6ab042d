package api

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// TestAPISlowExportDoesNotBlockWrites: an export whose client stops
// reading must not hold a bbolt read transaction open: a write that grows
// the file's mapping would wait for it (bbolt's remap takes the mmap lock
// that read transactions hold), and every read would then wait behind
// that write.
func TestAPISlowExportDoesNotBlockWrites(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	meta := map[string]string{}
	for i := range 60 {
		meta[strconv.Itoa(i)] = strings.Repeat("m", 16000)
	}
	body := func(id string) string {
		data, _ := json.Marshal(map[string]any{"target": "https://repo.example.org/" + id, "meta": meta})
		return string(data)
	}
	for i := range 40 {
		id := "ark:12345/x5big" + strconv.Itoa(i)
		if got := s.Call("PUT", "/id/"+id, "editor", body(id)); got.Status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %.200s", id, got.Status, got.Body)
		}
	}
	// An export that is never read past its first bytes.
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/ark/export HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer editor-secret\r\n\r\n", strings.TrimPrefix(s.Base, "http://"))
	buf := make([]byte, 12)
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "HTTP/1.1 200" {
		t.Fatalf("export: %q %v", buf, err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	c := &http.Client{Timeout: 30 * time.Second} // a write that waits this long is stuck behind the export
	for i := range 64 {
		id := "ark:12345/x5more" + strconv.Itoa(i)
		req, _ := http.NewRequest("PUT", s.Base+"/api/ark/id/"+id, strings.NewReader(body(id)))
		req.Header.Set("Authorization", "Bearer editor-secret")
		start := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			t.Errorf("PUT %s (the %dth write) with an export open: %v after %v", id, i+1, err, time.Since(start))
			// And now resolution, which reads the store, waits too.
			start = time.Now()
			_, err := c.Get(s.Base + "/ark:12345/x5never-looked-up")
			t.Errorf("resolving an unbound id meanwhile: %v after %v", err, time.Since(start))
			return
		}
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("PUT %s: %d", id, resp.StatusCode)
		}
		resp.Body.Close()
	}
	n, _ := io.Copy(io.Discard, io.LimitReader(conn, 200<<20))
	t.Logf("export read after the writes: %d bytes", n)
}
