#!/usr/bin/env bash
# bench/starttime.sh: the time from `caddy run` to the first answered
# request (a 302 for a bound identifier of the store), for a store of N
# bindings and a table of TABLE_N entries (default 1; none of them in the
# store, which the configuration checks before it serves), for the
# embedded bbolt store (opened with and without skip_check) and for
# PostgreSQL (a throwaway cluster on loopback). The store is filled once through the API (bench/apiload
# -mode import; bbolt's background merge waited for); then each Caddy of
# CADDIES is started RUNS times, alternating, on the same store (the page
# cache warm). Prints one line per start and the median of each.
#
#   flock /tmp/ark-bench.lock bench/starttime.sh          # N=1000000, both stores, this tree
#   CADDIES="main=/tmp/caddy-main branch=/tmp/caddy-branch" RUNS=5 bench/starttime.sh
#   N=10000 RUNS=1 STORES=bolt bench/starttime.sh         # smoke test
#   TABLE_N=200000 CADDIES="main=… branch=…" bench/starttime.sh  # a table past 10^5 keys
# STORES may also name copy: PostgreSQL with local_copy, the copy built
# once, then each start made after dropping the page cache (as after a
# reboot; needs root), measured to the first answer and to the copy
# serving (its state in the readiness check).
# Every process is started here and stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-1000000}
RUNS=${RUNS:-5}
TABLE_N=${TABLE_N:-1}
STORES=${STORES:-bolt postgres}
DATA=${DATA:-/work/bench-data/starttime}
CADDIES=${CADDIES:-}
CADDY=${CADDY:-${CADDIES:+${CADDIES%% *}}}
CADDY=${CADDY#*=}
. bench/apistore.sh
[ -n "$CADDIES" ] || CADDIES="this=$CADDY"
awk -v n="$TABLE_N" 'BEGIN { printf "{\"entries\": ["; for (i = 1; i <= n; i++) printf "%s{\"id\": \"ark:12345/t%d\", \"target\": \"https://table.example.org/t%d\"}", (i > 1 ? ", " : ""), i, i; print "]}" }' >"$DATA/table.json"
probe=ark:12345/u$((N - 1))

# config STORE: a Caddyfile on $port with the ark handler on STORE (the
# store block's lines), the table, and the lines of $api.
config() {
	cat <<EOF
{
	admin off
	persist_config off
	log {
		output discard
	}
}
:$port {
	bind 127.0.0.1
	ark {
		naan 12345
		table $DATA/table.json
		$1
		$api
	}
	respond 404
}
EOF
}

# fill STORE: N bindings imported into STORE through the API, merged.
fill() {
	port=$(freeport)
	api="api /api/ark {
			key bench $hash write:ark:12345
			max_body 4294967296
		}"
	config "$1" >"$DATA/fill.Caddyfile"
	XDG_DATA_HOME="$DATA/xdg" "${pin_server[@]}" "$CADDY" run --config "$DATA/fill.Caddyfile" --adapter caddyfile >"$DATA/fill.log" 2>&1 &
	caddy_pid=$!
	waitport "$port"
	"${pin_client[@]}" "$DATA/apiload" -api "http://127.0.0.1:$port/api/ark" -mode import -n "$N" -keys "$DATA/keys.txt"
	until [ -n "$(curl -s -H "Authorization: Bearer $ARK_API_KEY" "http://127.0.0.1:$port/api/ark/changes?since=$((N - 1))&limit=1")" ]; do sleep 1; done
	kill "$caddy_pid"
	wait "$caddy_pid" 2>/dev/null || true
	caddy_pid="" api=""
}
api="" cold=""

# start NAME CADDY STORE: sets elapsed to the seconds from starting CADDY
# on STORE to its first 302 for the last identifier imported.
start() {
	port=$(freeport)
	config "$3" >"$DATA/run.Caddyfile"
	local t0 code
	[ -n "$cold" ] && sync && echo 1 >/proc/sys/vm/drop_caches
	t0=$(date +%s.%N)
	XDG_DATA_HOME="$DATA/xdg" "${pin_server[@]}" "$2" run --config "$DATA/run.Caddyfile" --adapter caddyfile >"$DATA/run-$1.log" 2>&1 &
	caddy_pid=$!
	until code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/$probe") && [ "$code" = 302 ]; do
		kill -0 "$caddy_pid" 2>/dev/null || { echo "$1: Caddy stopped; its log:" >&2; cat "$DATA/run-$1.log" >&2; exit 1; }
		sleep 0.01
	done
	elapsed=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')
	if [ -n "$cold" ]; then
		until curl -s "http://127.0.0.1:$port/ready" | grep -q '"state":"serving"'; do sleep 0.01; done
		serving=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')
	fi
	kill "$caddy_pid"
	wait "$caddy_pid" 2>/dev/null || true
	caddy_pid=""
}

# measure LABEL STORE: RUNS starts of each Caddy of CADDIES on STORE.
measure() {
	local name
	declare -A all
	for _ in $(seq "$RUNS"); do
		for c in $CADDIES; do
			name=${c%%=*}
			start "$name" "${c#*=}" "$2"
			echo "$1 $name start-to-first-answer ${elapsed}s${cold:+, to the copy serving ${serving}s}"
			all[$name]+="$elapsed "
		done
	done
	for c in $CADDIES; do
		name=${c%%=*}
		printf '%s %s median %ss of %s\n' "$1" "$name" "$(echo "${all[$name]}" | tr ' ' '\n' | grep . | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')" "${all[$name]% }"
	done
}

for store in $STORES; do
	case $store in
	bolt)
		rm -f "$DATA/store.db"
		fill "store bolt $DATA/store.db"
		echo "bolt file of $N bindings: $(du -m "$DATA/store.db" | cut -f1) MiB"
		measure bolt "store bolt $DATA/store.db"
		measure bolt,skip_check "store bolt $DATA/store.db {
			skip_check
		}"
		;;
	postgres)
		pg_start
		fill "store postgres $dsn"
		measure postgres "store postgres $dsn"
		pg_stop
		;;
	copy)
		pg_start
		fill "store postgres $dsn"
		rm -rf "$DATA/copy"
		port=$(freeport)
		config "store postgres $dsn
		local_copy $DATA/copy
		ready /ready" >"$DATA/run.Caddyfile"
		XDG_DATA_HOME="$DATA/xdg" "$CADDY" run --config "$DATA/run.Caddyfile" --adapter caddyfile >"$DATA/build.log" 2>&1 &
		caddy_pid=$!
		until curl -s "http://127.0.0.1:$port/ready" | grep -q '"state":"serving"'; do sleep 0.1; done
		kill "$caddy_pid"
		wait "$caddy_pid" 2>/dev/null || true
		caddy_pid=""
		echo "copy of $N bindings: $(du -m "$DATA/copy" | cut -f1) MiB"
		cold=1
		measure postgres,local_copy,cold "store postgres $dsn
		local_copy $DATA/copy
		ready /ready"
		cold=""
		pg_stop
		;;
	esac
done
