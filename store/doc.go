// Package store defines the live data of identifiers that every backend
// holds: bindings made through the API, minted names, withdrawals, minter
// counters and the history of every change. Backends are Caddy modules in
// the ark.stores namespace, each in a package of its own (store/bolt,
// store/postgres); they implement Store and never normalize, validate or
// check permissions. This package imports nothing from this module.
package store
