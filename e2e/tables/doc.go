// Package tables holds caddy-ark's end-to-end tests of tables: loading
// JSON, Caddyfile and compiled tables and refusing bad ones with file,
// line and reason, policies, the rule that an identifier has one source
// (a table or the store), watching and swapping tables in a running Caddy,
// reloads, and the compile, export and import round trip.
//
// Each test starts a real Caddy with the ark module in the test's process
// (internal/caddytest) or runs the caddy binary built from cmd/caddy, and
// talks to it as a client would. Caddy's config is global to a process,
// so the tests of a package do not run in parallel with each other;
// `go test ./...` runs the packages beside each other, each in a process
// of its own, so no test assumes a fixed port, file or directory of its
// own outside its temporary directories.
package tables
