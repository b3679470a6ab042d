// Package ezid holds caddy-ark's end-to-end tests of EZID's API, version
// 2 (shared/specs/ezid-api-v2.rst): the requests of the API document and
// its examples, sent to a real Caddy as EZID's clients send them (Basic
// credentials that Caddy's basic_auth verifies, ANVL bodies, the session
// cookie), on bbolt and on PostgreSQL.
//
// Each test starts a real Caddy with the ark module in the test's process
// (internal/caddytest), or the caddy binary for a second node. Caddy's
// config is global to a process, so the tests of a package do not run in
// parallel with each other.
package ezid
