package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"

	_ "github.com/caddy-ark/caddy-ark" // registers the ark module and commands
)

// TestMain removes the binary that caddyBinary built and the shared
// PostgreSQL cluster.
func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveSharedPostgres()
	if caddyBin != "" {
		os.RemoveAll(filepath.Dir(caddyBin))
	}
	os.Exit(code)
}
