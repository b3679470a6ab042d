// Package docs holds caddy-ark's end-to-end tests of the documentation:
// README.md's and docs/*.md's Caddyfiles, links and HTTP and shell
// transcripts, replayed against a real Caddy running them, in process and
// through the binary xcaddy builds from README.md's line (.ci/run).
//
// Each test starts a real Caddy with the ark module in the test's process
// (internal/caddytest) or runs the caddy binary built from cmd/caddy, and
// talks to it as a client would. Caddy's config is global to a process,
// so the tests of a package do not run in parallel with each other;
// `go test ./...` runs the packages beside each other, each in a process
// of its own, so no test assumes a fixed port, file or directory of its
// own outside its temporary directories.
package docs
