// Package metadata holds caddy-ark's end-to-end tests of the machine-readable
// answers: signposting Link headers and link sets, content negotiation,
// and the metadata formats, each read back by a reader made for it.
//
// Each test starts a real Caddy with the ark module in the test's process
// (internal/caddytest) or runs the caddy binary built from cmd/caddy, and
// talks to it as a client would. Caddy's config is global to a process,
// so the tests of a package do not run in parallel with each other;
// `go test ./...` runs the packages beside each other, each in a process
// of its own, so no test assumes a fixed port, file or directory of its
// own outside its temporary directories.
package metadata
