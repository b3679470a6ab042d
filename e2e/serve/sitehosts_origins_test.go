package serve

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddyserver/caddy/v2"
)

// A site whose routes match a wildcard host links each request to the
// host it asked for, also past the number of hosts whose links the
// handler remembers (64), and again for a host it has seen before.
func TestWildcardSiteLinksEachHost(t *testing.T) {
	port := strconv.Itoa(caddytest.FreePort(t))
	s := &caddytest.Site{T: t, Base: "http://127.0.0.1:" + port}
	// The harness's site block is left empty; a second site on the same
	// port answers the wildcard host.
	if err := s.Load(`}
http://*.example.test:` + port + ` {
	bind 127.0.0.1
	ark {
		map ark:12345/x5 https://repo.example.org/x5
	}`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	for round := range 2 {
		for i := range 100 {
			host := fmt.Sprintf("h%d.Example.test:%s", i, port)
			got, _ := siteGetWithHost(s, "/ark:12345/x5", host, nil)
			want := fmt.Sprintf(`<http://h%d.example.test:%s/ark:12345/x5?info>; rel="describedby"`, i, port)
			if link := describedBy(got); link != want {
				t.Fatalf("round %d, Host %s: Link %q, want %q", round, host, link, want)
			}
		}
	}
}
