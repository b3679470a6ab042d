# bench/apistore.sh: sourced by the scripts that fill a store through the
# API and measure Caddy around it (importmem.sh, oai.sh). Needs DATA and
# CADDY (empty: build ./cmd/caddy into DATA); gives helpers, an API key
# (ARK_API_KEY, its hash in $hash), core pinning, a throwaway PostgreSQL
# cluster (pg_start, pg_stop) and an EXIT trap that stops what was started,
# by PID: the Caddy in caddy_pid, the sampler in sampler_pid, the cluster.

freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
waitport() { for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done; return 1; }
mib() { awk -v k="$1" 'BEGIN {printf "%.0f", k / 1024}'; }

mkdir -p "$DATA"
if [ -z "$CADDY" ]; then
	timeout 900 go build -o "$DATA/caddy" ./cmd/caddy
	CADDY=$DATA/caddy
fi
timeout 300 go build -o "$DATA/apiload" ./bench/apiload

export ARK_API_KEY=bench-key-$RANDOM$RANDOM
hash=$(printf %s "$ARK_API_KEY" | sha256sum | cut -d' ' -f1)
pin_server=() pin_client=()
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	pin_server=(taskset -c 0) pin_client=(taskset -c 1)
fi

caddy_pid="" sampler_pid="" pgdir="" pgport="" dsn=""
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as=()
[ "$(id -u)" -eq 0 ] && as=(runuser -u postgres --)

# pg_start: a throwaway cluster in DATA on a free port; sets pgdir, pgport
# and dsn.
pg_start() {
	pgdir=$(mktemp -d "$DATA/pg-XXXXXX")
	[ ${#as[@]} -gt 0 ] && chown postgres: "$pgdir"
	pgport=$(freeport)
	(cd "$pgdir" && "${as[@]}" "$bin/initdb" -D "$pgdir/data" -U ark -A trust --no-instructions >/dev/null)
	(cd "$pgdir" && "${as[@]}" "$bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
		-o "-p $pgport -k $pgdir -c listen_addresses=127.0.0.1" start >/dev/null)
	dsn="postgres://ark@127.0.0.1:$pgport/postgres?sslmode=disable"
}

# pg_stop: stop and remove the cluster pg_start made, if any.
pg_stop() {
	if [ -n "$pgdir" ]; then
		"${as[@]}" "$bin/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 || true
		rm -rf "$pgdir"
		pgdir=""
	fi
}

cleanup() {
	[ -n "$sampler_pid" ] && kill "$sampler_pid" 2>/dev/null || true
	[ -n "$caddy_pid" ] && kill "$caddy_pid" 2>/dev/null || true
	pg_stop
}
trap cleanup EXIT
