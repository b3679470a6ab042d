package api

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// The names the api and ui blocks offer as suggestions are those they
// take: none is refused as unknown.
func TestSubdirectivesAreKnown(t *testing.T) {
	blocks := map[string][]string{
		"api /api {\n\t%s\n}":                subdirectives,
		"api /api {\n\tui {\n\t\t%s\n\t}\n}": uiSubdirectives,
	}
	for block, names := range blocks {
		for _, name := range names {
			text := strings.Replace(block, "%s", name, 1)
			err := new(API).UnmarshalCaddyfile(caddyfile.NewTestDispenser(text))
			if err != nil && strings.Contains(err.Error(), "unknown") {
				t.Errorf("%q: %v", text, err)
			}
		}
	}
}
