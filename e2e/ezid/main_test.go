package ezid

import (
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"

	_ "github.com/caddy-ark/caddy-ark" // registers the ark module and commands
)

// TestMain removes what the tests shared: the caddy binary and the
// PostgreSQL cluster.
func TestMain(m *testing.M) { caddytest.Main(m) }
