// Package failover holds caddy-ark's end-to-end tests of the PostgreSQL
// store under PostgreSQL's own replication: Caddy nodes whose connection
// strings name a primary and its synchronous hot standby
// (testkit.StartReplicated), the primary killed with SIGKILL under load,
// the standby promoted with `pg_ctl promote`, and what the nodes answer
// and accept meanwhile and afterwards.
//
// One node runs in the test's process (internal/caddytest), the other is
// the caddy binary built from cmd/caddy, as in e2e/store.
package failover
