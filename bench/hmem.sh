#!/bin/bash
# hmem.sh: what memswap.sh and reloadresets.sh share. Sourced, it defines
# start_caddy BINARY DIR HANDLER, which copies the 1M-entry table
# /tmp/hmem/a.json to DIR/t.json, writes DIR/Caddyfile (admin on
# localhost:23019, the site on 127.0.0.1:23080 with HANDLER), starts BINARY
# on it, sets pid and a trap that kills it by PID on exit, and waits until
# the site answers. See BENCHMARKS.md for how /tmp/hmem is prepared.
start_caddy() {
	local bin=$1 dir=$2 handler=$3
	cp /tmp/hmem/a.json "$dir/t.json"
	cat > "$dir/Caddyfile" <<EOF
{
	admin localhost:23019
	persist_config off
	log {
		output file $dir/log.json
		format json
	}
}
:23080 {
	bind 127.0.0.1
	$handler
}
EOF
	"$bin" run --config "$dir/Caddyfile" > "$dir/out.txt" 2>&1 &
	pid=$!
	trap 'kill $pid 2>/dev/null' EXIT
	until curl -s -o /dev/null http://127.0.0.1:23080/ark:12345/x; do sleep 0.2; done
}
