// Package importer converts identifier tables kept elsewhere (CSV and TSV
// exports such as EZID's, Apache RewriteMap files, nginx map blocks) into
// table JSON, with the same checks a table file gets: each problem is named
// with its line, and a source with problems converts to nothing. One file
// per source format. It imports only normalize and table.
package importer
