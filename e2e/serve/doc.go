// Package serve holds caddy-ark's end-to-end tests of the answer path: how
// a request for an identifier is resolved and answered: normalization,
// spellings and dot segments, trailing characters, templates and
// placeholders, refusals, ?info, links and base_url, site hosts, the
// well-known files, readiness, limits, and the logs and metrics of
// answers.
//
// Each test starts a real Caddy with the ark module in the test's process
// (internal/caddytest) or runs the caddy binary built from cmd/caddy, and
// talks to it as a client would. Caddy's config is global to a process,
// so the tests of a package do not run in parallel with each other;
// `go test ./...` runs the packages beside each other, each in a process
// of its own, so no test assumes a fixed port, file or directory of its
// own outside its temporary directories.
package serve
