package api

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// importBody is a table file of n entries, ark:12345/<prefix><i> bound
// to https://repo.example.org/<prefix>/<i>, one a line.
func importBody(n int, prefix string) string {
	var body strings.Builder
	body.WriteString(`{"entries": [`)
	for i := range n {
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, "\n"+`{"id": "ark:12345/%s%d", "target": "https://repo.example.org/%s/%d"}`, prefix, i, prefix, i)
	}
	body.WriteString("\n]}\n")
	return body.String()
}

// postImport sends POST import with body as the editor key, over a
// connection of its own that says the body is length bytes long (more
// than body: a body that never ends). The caller reads the answer from
// the connection, or closes it.
func postImport(t *testing.T, s *caddytest.APISite, body string, length int) net.Conn {
	t.Helper()
	u, err := url.Parse(s.Base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(conn)
	fmt.Fprintf(w, "POST /api/ark/import HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer editor-secret\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", u.Host, length, body)
	if err := w.Flush(); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	return conn
}
