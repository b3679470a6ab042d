// Package table is identifier data as operators write it: entries (an
// identifier, its target, status and metadata), the streaming reader of JSON
// table files, the in-memory table with its builder, the compiled .arkt
// format (written by Compile, mapped by OpenCompiled) and a compiled table
// with inline entries layered on top. Open gives any of them as one Table.
// The limits on an entry live here too.
//
// It knows nothing of Caddy or HTTP requests, and imports only normalize and
// this module's internal packages.
package table
