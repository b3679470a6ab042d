package api

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// An import under way when its configuration is replaced (the API
// stopping) keeps nothing and is answered 503 with Retry-After, as a
// store that cannot finish is: the body was good, and the client may
// send it again.
func TestAPIImportStoppedByAReload(t *testing.T) {
	pg := testkit.SharedPostgres(t)
	for name, start := range map[string]func() (*caddytest.APISite, func() string){
		"bbolt": func() (*caddytest.APISite, func() string) {
			s := caddytest.StartAPISite(t, "")
			return s, func() string { return caddytest.APISiteBody(s.DB, s.Table, "") }
		},
		"postgresql": func() (*caddytest.APISite, func() string) {
			tablePath := testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}})
			body := caddytest.PGSiteBody(pg.CreateDB(t), tablePath)
			return &caddytest.APISite{Site: caddytest.StartSite(t, body), Table: tablePath}, func() string { return body }
		},
	} {
		t.Run(name, func(t *testing.T) { importStopped(t, start) })
	}
}

func importStopped(t *testing.T, start func() (*caddytest.APISite, func() string)) {
	s, config := start()
	u, err := url.Parse(s.Base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var body strings.Builder
	body.WriteString(`{"entries": [`)
	for i := range 300000 {
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, "\n"+`{"id": "ark:12345/r%d", "target": "https://repo.example.org/r/%d"}`, i, i)
	}
	body.WriteString("\n]}\n")
	w := bufio.NewWriter(conn)
	fmt.Fprintf(w, "POST /api/ark/import HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer editor-secret\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", u.Host, body.Len(), body.String())
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the store is taking the body
	if err := s.Load(config()); err != nil {
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
		t.Skip("the import ended before the reload: nothing to stop")
	}
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("an import stopped by a reload: %d (Retry-After %q), want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if got := s.Call("GET", "/id/ark:12345/r0", "editor", ""); got.Status != http.StatusNotFound {
		t.Errorf("the stopped import kept ark:12345/r0: %d", got.Status)
	}
}
