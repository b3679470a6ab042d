// Package importer converts identifier tables kept elsewhere (CSV and TSV
// exports such as EZID's, Apache RewriteMap files, nginx map blocks) and
// JSON tables and exports into table JSON, with the same checks a table
// file gets: each problem is named with its line, and a source with
// problems converts to nothing. One file per source format. EntryOf and
// Binding convert between table entries and store bindings, for every
// export and import. It imports only normalize, table and store.
package importer
