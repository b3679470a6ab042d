// Package console is the web console of the management API: pages for
// people who curate identifiers rather than script them, at <api
// prefix>/ui/. It signs in with a key of the API and then does everything
// through the API itself, in process, as that key: the key's scopes and
// the API's checks apply to all it shows and does. The pages are rendered
// on the server from embedded templates and work without JavaScript.
// docs/console.md describes its setup and its security.
package console
