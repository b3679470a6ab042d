package ark

// The modules and commands that come with the handler: a build with
// `xcaddy build --with github.com/caddy-ark/caddy-ark` gets them all, as
// Caddy's modules/standard does for its own.
import (
	_ "github.com/caddy-ark/caddy-ark/cli"            // caddy ark …
	_ "github.com/caddy-ark/caddy-ark/store/bolt"     // ark.stores.bolt (the default store)
	_ "github.com/caddy-ark/caddy-ark/store/postgres" // ark.stores.postgres
)
