#!/usr/bin/env bash
# The management API and the resolution of store-bound identifiers, on
# loopback, in one run: one caddy process serves the ark site (bolt store,
# API, a minter) and a Caddy `respond` site; bench/apiload fills the store
# through a bulk request and measures bind latency and mint throughput;
# wrk (bench/wrk/arks.lua) measures redirects of the store-bound ids
# against `respond` with the same requests. Every process is started here,
# bounded by `timeout`, and killed by PID on exit.
#
#   bench/api.sh                    # 10,000 ids, 3 x 5 s wrk runs per site
#   N=1000 RUNS=1 DURATION=2s bench/api.sh
set -euo pipefail

N=${N:-10000}               # ids bound through bulk, then requested by wrk
BINDS=${BINDS:-500}         # sequential PUTs for the bind latency
MINTS=${MINTS:-5000}        # mints of one name each
MINT_CLIENTS=${MINT_CLIENTS:-16}
RUNS=${RUNS:-3}
DURATION=${DURATION:-5s}
CONNECTIONS=${CONNECTIONS:-50}
PORT=${PORT:-19280}
CADDY=${CADDY:-}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=$ROOT/bench/out
WORK=$OUT/api
rm -rf "$WORK"
mkdir -p "$WORK/xdg"
log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
command -v wrk >/dev/null || die "wrk not found"
PIN_SERVER=() PIN_CLIENT=()
if command -v taskset >/dev/null && [ "$(nproc --all)" -ge 2 ]; then
	PIN_SERVER=(taskset -c 0)
	PIN_CLIENT=(taskset -c 1)
fi

. "$ROOT/bench/procs.sh"

if [ -z "$CADDY" ]; then
	log "building ./cmd/caddy"
	timeout 900 go build -o "$OUT/caddy" ./cmd/caddy
	CADDY=$OUT/caddy
fi
timeout 300 go build -o "$OUT/apiload" ./bench/apiload

export ARK_API_KEY=bench-key-$RANDOM$RANDOM
HASH=$(printf %s "$ARK_API_KEY" | sha256sum | cut -d' ' -f1)
ARK=$PORT RESPOND=$((PORT + 1))
cat >"$WORK/Caddyfile" <<EOC
{
	admin off
	persist_config off
	auto_https off
	log {
		level WARN
	}
}

http://:$ARK {
	bind 127.0.0.1
	ark {
		naan 12345
		foreign 404
		store bolt $WORK/store.db
		minter ark:12345/m1 .zd
		api /api/ark {
			key bench $HASH write:ark:12345
		}
	}
}

http://:$RESPOND {
	bind 127.0.0.1
	respond "ok" 200
}
EOC

log "starting caddy on 127.0.0.1:$ARK (ark) and :$RESPOND (respond)"
XDG_DATA_HOME=$WORK/xdg XDG_CONFIG_HOME=$WORK/xdg timeout --kill-after=10 900 "${PIN_SERVER[@]}" \
	"$CADDY" run --config "$WORK/Caddyfile" --adapter caddyfile >"$WORK/server.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 300); do
	curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$RESPOND/" && break
	sleep 0.1
done
API=http://127.0.0.1:$ARK/api/ark
load() { timeout 600 "${PIN_CLIENT[@]}" "$OUT/apiload" -api "$API" "$@"; }

{
	echo "bench/api.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), $(go env GOVERSION); load before: $(uptime | sed 's/.*load average/load average/')"
	load -mode fill -n "$N" -keys "$WORK/keys.txt"
	load -mode bind -n "$BINDS"
	load -mode mint -n "$MINTS" -c "$MINT_CLIENTS"
	load -mode mint -n "$((MINTS / 10))" -c 1
	load -mode mint -n "$((MINTS * 20))" -per 1000 -c 4
} | tee "$WORK/api.txt"

# wrk: the store-bound ids (normal form, so that respond gets the same
# requests), first a check that every answer is a 302, then the runs.
wrkrun() {
	timeout $(( ${DURATION%s} + 60 )) "${PIN_CLIENT[@]}" wrk -t1 -c"$CONNECTIONS" -d"$1" --timeout 10s --latency \
		-s bench/wrk/arks.lua "http://127.0.0.1:$2" -- keys="$WORK/keys.txt" mode=canonical "${@:3}"
}
wrkrun 2s "$ARK" check=1 | grep '^ARKS_RESULT' | tee "$WORK/check.txt"
grep -q 'statuses=302:[0-9]*$' "$WORK/check.txt" || die "not every answer was a 302: $(cat "$WORK/check.txt")"
for i in $(seq "$RUNS"); do
	for site in ark respond; do
		port=$ARK
		[ $site = respond ] && port=$RESPOND
		r=$(wrkrun "$DURATION" "$port" | grep '^ARKS_RESULT')
		echo "$site run $i: $(echo "$r" | grep -o 'rps=[^ ]*') $(echo "$r" | grep -o 'p99_ms=[^ ]*') $(echo "$r" | grep -o 'err_[a-z]*=[1-9][0-9]*' | tr '\n' ' ')"
	done
done | tee -a "$WORK/api.txt"
echo "load after: $(uptime | sed 's/.*load average/load average/')" | tee -a "$WORK/api.txt"
