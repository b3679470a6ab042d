// Package resolve answers "what is at this identifier?": one immutable
// Resolver per table and configuration composes the table, the templates,
// the store and the foreign resolver with their precedence rules, and gives
// each request core a Resolution (an outcome, a status and a target to
// build). The caches in front of it are the handler's, behind the small
// interfaces Cache and KV that this package owns.
//
// It imports normalize, table, store, mint and the internal packages, never
// the handler.
package resolve
