package stats

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// The names the stats block offers as suggestions are those it takes:
// none is refused as unknown.
func TestSubdirectivesAreKnown(t *testing.T) {
	for _, name := range subdirectives {
		text := "stats {\n\t" + name + "\n}"
		err := new(Config).UnmarshalCaddyfile(caddyfile.NewTestDispenser(text))
		if err != nil && strings.Contains(err.Error(), "unknown") {
			t.Errorf("%q: %v", text, err)
		}
	}
}
