// Package api is the management API of a site's identifiers: API keys,
// people signed in by the site's own authentication, and their scopes, reading, binding (PUT, PATCH), withdrawing, minting, bulk
// changes, export and import, under a path of the site. Its core is Go
// functions of API taking a Caller (Get, Put, Patch, Withdraw, Mint,
// Import, Export, Stats, ListIDs, Retarget, Undo, Changes), each working
// in a session of the caller's key; its HTTP handlers (Serve) read a
// request, call the core and write its answer, and the console calls the
// core directly. It depends on the small interface Site, which the Caddy
// handler implements; the API never imports the handler.
package api
