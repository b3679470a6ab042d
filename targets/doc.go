// Package targets checks the targets that a site's identifiers redirect
// to, or serve in place, and says which ones rotted: each distinct target
// is checked again every interval, politely (one request at a time per
// origin, at least host_interval apart), and counted broken only after
// several failures in a row. A target that now ends at its origin's front
// page, or at a page many targets end at, is suspect; one behind a login
// or a bot wall is unverifiable rather than broken.
//
// The results are kept in the site's store (store.TargetChecks), so that
// they survive restarts and, with PostgreSQL, are shared by every node,
// one of which checks at a time. The package knows nothing of Caddy's
// server: the handler gives it its tables, its store and a way to ask the
// site itself for in-place targets (Site); only its Caddyfile syntax
// (Config.UnmarshalCaddyfile) uses Caddy's parser.
package targets
