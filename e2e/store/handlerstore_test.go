package store

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// TestStoreCaddyfile: the store subdirective adapts to the store module,
// and a bad one is refused with its line.
func TestStoreCaddyfile(t *testing.T) {
	for body, want := range map[string]string{
		"store":                   `"store":{"backend":"bolt"}`,
		"store bolt /srv/ids.db":  `"store":{"backend":"bolt","path":"/srv/ids.db"}`,
		"store bolt ids.db":       `"store":{"backend":"bolt","path":"/etc/caddy/ids.db"}`,
		"minter ark:12345/x5 .rk": "minter: shoulder ark:12345/x5: template \".rk\": needs at least one d or e position",
		"store bolt a b":          "wrong argument count",
		"store nosuch":            `store: unknown backend "nosuch" (the backends are `,
	} {
		cfg, err := caddytest.AdaptCaddyfile(":80 {\n\tark {\n\t\t"+body+"\n\t}\n}\n", "/etc/caddy/Caddyfile")
		got := string(cfg)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, want) {
			t.Errorf("%s: got %s, want it to contain %s", body, got, want)
		}
	}
}
