// Package e2e holds caddy-ark's end-to-end tests: each starts a real Caddy
// with the ark module in the test's process (internal/caddytest), or runs
// the caddy binary built from cmd/caddy, and talks to it as a client
// would, over HTTP on loopback or on the command line. One file per
// concern; the package has no code of its own.
//
// Caddy's config is global to a process, so these tests do not run in
// parallel with each other; `go test ./...` runs this package beside the
// others, each in a process of its own.
package e2e
