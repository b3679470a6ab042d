// Package testkit holds what the tests of several packages share: a
// throwaway PostgreSQL cluster run as an unprivileged user, provisioning a
// Caddy module for a test, and waiting for a condition. It is imported only
// by tests, never by the code they test.
package testkit
