// Package sameorigin tells a request that a browser sent from another
// site, or from another origin of the same site, from one that the site's
// own pages or a program sent, as far as the browser's Sec-Fetch-Site and
// Origin headers say. The console and the management API refuse, with it,
// a change that a signed-in browser was made to send from elsewhere: cached
// basic_auth credentials and an identity provider's cookie go with every
// request a browser makes, whoever's page makes it. It imports nothing
// from this module.
package sameorigin
