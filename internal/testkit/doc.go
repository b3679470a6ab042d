// Package testkit holds what the tests of several packages share: a
// throwaway PostgreSQL cluster run as an unprivileged user, provisioning a
// Caddy module for a test, and waiting for a condition, chromium, files and
// tables, Link headers and link sets, a TCP link that loses what a
// server sends (link.go), a site root with hidden files
// (hidden.go), a target with a bidi override (bidi.go), the readers a test
// runs (tools.go), the lines of an answer (lines.go). It is imported only
// by tests, never by the code they test.
package testkit
