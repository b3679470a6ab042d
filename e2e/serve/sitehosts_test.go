package serve

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// A named site matches its host whatever the port in Host says; a port the
// server does not listen on is forged (or mapped by something Caddy does
// not know), and must not reach a link: links are path-absolute then.
func TestNamedSiteDoesNotReflectAForgedPort(t *testing.T) {
	s := caddytest.StartSite(t, `
	ark {
		map ark:12345/x5 https://repo.example.org/x5
	}`)
	port := strings.TrimPrefix(s.Base, "http://127.0.0.1:")
	for host, want := range map[string]string{
		"127.0.0.1:" + port:  `<` + s.Base + `/ark:12345/x5?info>; rel="describedby"`,
		"127.0.0.1":          `<http://127.0.0.1/ark:12345/x5?info>; rel="describedby"`,
		"127.0.0.1:1":        `</ark:12345/x5?info>; rel="describedby"`,
		"127.0.0.1:0" + port: `</ark:12345/x5?info>; rel="describedby"`,
		// Host matching strips brackets: the link is built from the name
		// that matched, never from the Host as spelled.
		"[127.0.0.1]:" + port: `<` + s.Base + `/ark:12345/x5?info>; rel="describedby"`,
		"[127.0.0.1]":         `<http://127.0.0.1/ark:12345/x5?info>; rel="describedby"`,
	} {
		got, _ := siteGetWithHost(s, "/ark:12345/x5", host, nil)
		if link := describedBy(got); link != want {
			t.Errorf("Host %q: Link %q, want %q", host, link, want)
		}
		_, record := siteGetWithHost(s, "/ark:12345/x5?info", host, caddytest.AcceptJSON)
		if url, _ := record["url"].(string); !strings.HasPrefix(want, "<"+url) {
			t.Errorf("Host %q: ?info url %q, want it to match %q", host, url, want)
		}
	}
}
