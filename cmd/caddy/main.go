// Command caddy is stock Caddy with the caddy-ark plugin compiled in, for
// running the examples and the benchmarks without xcaddy.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/caddy-ark/caddy-ark"
)

func main() {
	caddycmd.Main()
}
