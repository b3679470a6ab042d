package resolve_test

import (
	"os"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// TestMain removes the PostgreSQL cluster the tests shared.
func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveSharedPostgres()
	os.Exit(code)
}
