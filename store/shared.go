package store

import "sync"

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

	// Hold keeps the shared object open, as a provisioned module of the
	// same settings does, until release is called, and returns it. What
	// must outlive the module it was given (the statistics writing their
	// last counts, a target checker that serves several configs) holds
	// the object so, whatever order Caddy cleans a config's modules up in,
	// and never opens a module of its own. Call it on a provisioned module
	// only; release may be called more than once.
	Hold() (held Store, release func() error)
}

// ReleaseOnce returns release, made safe to call more than once: the
// first call releases, later ones do nothing and return nil.
func ReleaseOnce(release func() error) func() error {
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() { err = release() })
		return err
	}
}
