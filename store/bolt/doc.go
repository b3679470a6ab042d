// Package bolt is the embedded store: one bbolt file on this machine,
// registered as the Caddy module ark.stores.bolt, the default store of a
// handler with minters or an API. It implements store.Store and imports
// nothing else from this module.
package bolt
