// Package store holds caddy-ark's end-to-end tests of the stores: the
// bbolt and PostgreSQL stores under a running Caddy, their readiness,
// outages and damage, dumps and moves between them, formats, releasing a
// store on reload, and `caddy ark import` into them.
//
// Each test starts a real Caddy with the ark module in the test's process
// (internal/caddytest) or runs the caddy binary built from cmd/caddy, and
// talks to it as a client would. Caddy's config is global to a process,
// so the tests of a package do not run in parallel with each other;
// `go test ./...` runs the packages beside each other, each in a process
// of its own, so no test assumes a fixed port, file or directory of its
// own outside its temporary directories.
package store
