package store

// Shared is a store module whose data is held by an object that every
// module of the same settings shares, across config reloads (through a
// caddy.UsagePool): an open bbolt file, a PostgreSQL pool. Both backends
// implement it. What outlives one config, such as the target checker,
// holds the shared object rather than a module that a reload cleans up.
type Shared interface {
	// Shared returns the shared object, as a Store that stays usable as
	// long as a module using it is provisioned; the same object for
	// every module of the same settings.
	Shared() Store
}
