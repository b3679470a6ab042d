// Package api is the management API of a site's identifiers: API keys and
// their scopes, reading, binding (PUT, PATCH), withdrawing, minting, bulk
// changes, export and import, all over HTTP under a path of the site. Its
// handlers depend on the small interface Site, which the Caddy handler
// implements; the API never imports the handler.
package api
