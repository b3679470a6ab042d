// Package caddytest is the harness of caddy-ark's end-to-end tests, as
// Caddy's own caddytest is of Caddy's: it starts a real Caddy in the test's
// process from a Caddyfile site block or a JSON config, on free loopback
// ports, reloads it and waits for the replaced config's listeners to
// close, sends real HTTP requests, and scrapes the admin endpoint's
// /metrics. One file per fixture: a plain site (site.go), reloads
// (reload.go), an API site with a bbolt store (api.go), the console and
// its users (console.go), HTTPS with Caddy's local CA (https.go), the
// admin endpoint and Caddy's logs (ops.go, logs.go), table files
// (tables.go), the module's root and its static test site (root.go), the
// built caddy binary and the `caddy ark` commands (binary.go, command.go),
// caddy processes on PostgreSQL (node.go), API keys (keys.go), decoding
// answers (answers.go, info.go, changes.go, stats.go), metric series
// (series.go), a store written by an earlier version (store.go), and the
// TestMain of every end-to-end package (main.go).
//
// The end-to-end tests are in packages by concern under e2e/. Caddy's
// config is global to a process: a test binary runs one of these sites at
// a time, so the tests of a package do not run in parallel; the packages
// run beside each other, each in a process of its own, so every site
// listens on a free port and Main gives each process its own data
// directories.
// Fixtures that need no Caddy (a PostgreSQL cluster, chromium, files,
// waiting) are in internal/testkit. Imported only by tests.
package caddytest
