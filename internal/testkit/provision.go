package testkit

import (
	"context"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// Module is a Caddy module that is provisioned and cleaned up.
type Module interface {
	caddy.Provisioner
	caddy.CleanerUpper
}

// Provision provisions m as Caddy would, with a context of its own, and
// cleans it up when the test ends.
func Provision[M Module](t testing.TB, m M) M {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	if err := m.Provision(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.Cleanup()
		cancel()
	})
	return m
}
