// Package importer converts identifier tables kept elsewhere (CSV and TSV
// exports, EZID's batch downloads in ANVL, CSV and XML, Apache RewriteMap
// files, nginx map blocks) and JSON tables and exports into table JSON
// (Convert) or into a store's bindings (Bindings, which keeps EZID's
// reserved identifiers reserved), with the same checks a table file gets:
// each problem is named with its line, and a source with problems
// converts to nothing. One file per source format. EntryOf and Binding
// convert between table entries and store bindings, for every export and
// import. It imports normalize, table, store, and the ANVL codec and
// download formats of ezid/anvl and ezid/download; the mapping of EZID's
// elements is given to it (Options.EZIDBinding), since package ezid
// serves EZID's API on the api package, which imports this one.
package importer
