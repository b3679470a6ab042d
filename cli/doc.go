// Package cli is the `caddy ark` command and its subcommands (normalize,
// check, compile, export, import, resolve, store dump/load/backup, and the
// API client's mint, bind, withdraw and export). It registers with Caddy's
// command line in init; the handler's package imports it blank, so every
// build with the module has it. It never imports the handler's package: it
// reads tables, stores and the API through their own packages.
package cli
