// Package localcopy tests, through real Caddy processes and a real
// PostgreSQL cluster (and a bbolt file), the local copy of the store that
// a node keeps with local_copy: every identifier answered through the
// store's outage and across a restart during it, withdrawals never
// answered live, writes refused while the store is away.
package localcopy
