package caddytest

import (
	"os"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// Main is the TestMain of an end-to-end test package: it runs the
// package's tests, then removes what they shared for the whole process
// (the PostgreSQL cluster of testkit.SharedPostgres, the caddy binary of
// Binary) and exits with the tests' status.
func Main(m *testing.M) {
	code := m.Run()
	testkit.RemoveSharedPostgres()
	RemoveBinary()
	os.Exit(code)
}
