package postgres

import (
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// TestMain removes the PostgreSQL cluster the tests shared.
func TestMain(m *testing.M) { testkit.Main(m) }
