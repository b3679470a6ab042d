// Package postgres is the store shared by many Caddy nodes: PostgreSQL,
// registered as the Caddy module ark.stores.postgres. Nodes see each other's
// changes through LISTEN/NOTIFY and a change history, and Open gives tools
// (`caddy ark import --postgres`) the same store without Caddy. It
// implements store.Store and imports nothing else from this module.
package postgres
