#!/usr/bin/env bash
# bench/importmem.sh: Caddy's memory around one big import through the API
# (POST import of N redirects, bench/apiload -mode import; with MODE=bulk,
# one POST bulk of N lines, -mode fill, each line its own write), and the
# bytes the store keeps per binding, for the embedded bbolt store and for
# PostgreSQL (a throwaway cluster on loopback), in one run.
#
# For each store: a fresh Caddy (admin on loopback, for its Go memory
# statistics and heap profiles) with a fresh store; its memory when ready,
# sampled every 0.2 s during the import (the peak), when the import
# returns, once Caddy's CPU time stops growing (bbolt's background merge
# done), and SETTLE seconds later. VmRSS is split into anonymous memory
# (Go's heap, stacks) and file pages (bbolt's read-only mmap of its file,
# Caddy's binary); Go's heap in use and held from the OS come from
# /debug/vars. Heap profiles (pprof, inuse_space) are taken when the import
# returns and at the end, in $DATA/<store>-heap-*.pb.gz. Then Caddy stops
# and the store's bytes per binding are printed: bench/boltstats for bbolt
# (file, buckets, free pages), table and index sizes for PostgreSQL.
#
#   flock /tmp/ark-bench.lock bench/importmem.sh             # N=1000000, both stores
#   N=100000 STORES=bolt SETTLE=10 bench/importmem.sh
#   MODE=bulk N=50000 STORES=bolt bench/importmem.sh
#   CADDY=/path/to/caddy bench/importmem.sh                  # a caddy built elsewhere
# Every process is started here, bounded by timeout, and stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-1000000}
STORES=${STORES:-bolt postgres}
ORDER=${ORDER:-}   # "random" for the identifiers in a random order
TABLE=${TABLE:-}   # a table file to import instead (N is then ignored)
MODE=${MODE:-import} # or bulk
SETTLE=${SETTLE:-60}
DATA=${DATA:-/work/bench-data/importmem}
CADDY=${CADDY:-}
. bench/apistore.sh
timeout 300 go build -o "$DATA/boltstats" ./bench/boltstats

# memory NAME: one line of Caddy's memory now, labelled NAME.
memory() {
	local rss anon file vars
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$caddy_pid/status")
	anon=$(awk '/^RssAnon:/ {print $2}' "/proc/$caddy_pid/status")
	file=$(awk '/^RssFile:/ {print $2}' "/proc/$caddy_pid/status")
	vars=$(curl -s "http://127.0.0.1:$admin/debug/vars" | python3 -c '
import json, sys
m = json.load(sys.stdin)["memstats"]
print("heap_inuse_mib=%.0f heap_held_mib=%.0f go_sys_mib=%.0f" % (m["HeapInuse"] / 2**20, (m["HeapSys"] - m["HeapReleased"]) / 2**20, m["Sys"] / 2**20))')
	echo "$store $1: vmrss_mib=$(mib "$rss") anon_mib=$(mib "$anon") file_mib=$(mib "$file") $vars"
}

# cputicks: Caddy's CPU time so far, in clock ticks.
cputicks() { awk '{print $14 + $15}' "/proc/$caddy_pid/stat"; }

# settle: wait until Caddy's CPU time stops growing (3 s in a row with
# under 0.05 s of CPU each), at most 600 s.
settle() {
	local last now quiet=0
	last=$(cputicks)
	for _ in $(seq 600); do
		sleep 1
		now=$(cputicks)
		if [ $((now - last)) -lt 5 ]; then
			quiet=$((quiet + 1))
			[ $quiet -ge 3 ] && return 0
		else
			quiet=0
		fi
		last=$now
	done
}

echo "bench/importmem.sh MODE=$MODE N=$N ORDER=${ORDER:-in order} TABLE=${TABLE:-none}, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), caddy $CADDY; uptime before: $(uptime | sed 's/.*load average/load average/')"
for store in $STORES; do
	case $store in
	bolt)
		rm -f "$DATA/store.db"
		line="store bolt $DATA/store.db"
		;;
	postgres)
		pg_start
		line="store postgres $dsn"
		;;
	*) echo "unknown store $store" >&2; exit 1 ;;
	esac
	port=$(freeport) admin=$(freeport)
	cat >"$DATA/$store.Caddyfile" <<EOF
{
	admin 127.0.0.1:$admin
	persist_config off
	log {
		level WARN
	}
}
http://:$port {
	bind 127.0.0.1
	ark {
		naan 12345
		$line
		api /api/ark {
			key bench $hash write:ark:12345
			max_body 1073741824
		}
	}
	respond 404
}
EOF
	XDG_DATA_HOME="$DATA/xdg" XDG_CONFIG_HOME="$DATA/xdg" timeout --kill-after=10 3600 "${pin_server[@]}" \
		"$CADDY" run --config "$DATA/$store.Caddyfile" --adapter caddyfile >"$DATA/$store.log" 2>&1 &
	timeout_pid=$!
	waitport "$port"
	caddy_pid=$(pgrep -P "$timeout_pid") # timeout's child: Caddy itself (taskset execs it)
	api="http://127.0.0.1:$port/api/ark"
	memory ready
	(while sleep 0.2; do awk '/^VmRSS:|^RssAnon:|^RssFile:/ {printf "%s ", $2} END {print ""}' "/proc/$caddy_pid/status" 2>/dev/null || exit 0; done) >"$DATA/$store-samples.txt" &
	sampler_pid=$!
	order=()
	[ "$ORDER" = random ] && order=(-order random)
	[ -n "$TABLE" ] && order=(-table "$TABLE")
	if [ "$MODE" = bulk ]; then
		timeout 3600 "${pin_client[@]}" "$DATA/apiload" -api "$api" -mode fill -n "$N" -keys "$DATA/keys.txt" | sed "s/^/$store /"
	else
		timeout 1800 "${pin_client[@]}" "$DATA/apiload" -api "$api" -mode import -n "$N" "${order[@]}" -keys "$DATA/keys.txt" | sed "s/^/$store /"
	fi
	memory "import returned"
	curl -s -o "$DATA/$store-heap-returned.pb.gz" "http://127.0.0.1:$admin/debug/pprof/heap?gc=1"
	settle
	memory "settled"
	sleep "$SETTLE"
	kill "$sampler_pid"
	wait "$sampler_pid" 2>/dev/null || true
	sampler_pid=""
	memory "settled+${SETTLE}s"
	curl -s -o "$DATA/$store-heap-end.pb.gz" "http://127.0.0.1:$admin/debug/pprof/heap?gc=1"
	awk -v s="$store" 'NF == 3 {if ($1 > r) r = $1; if ($2 > a) a = $2; if ($3 > f) f = $3}
		END {printf "%s peak: vmrss_mib=%.0f anon_mib=%.0f file_mib=%.0f (highest of %d samples)\n", s, r / 1024, a / 1024, f / 1024, NR}' "$DATA/$store-samples.txt"
	echo "$store VmHWM_mib=$(mib "$(awk '/^VmHWM:/ {print $2}' "/proc/$caddy_pid/status")")"
	if [ "$store" = postgres ]; then
		"${as[@]}" psql -h "$pgdir" -p "$pgport" -U ark -d postgres -At -F ' ' -c "
			SELECT 'postgres relation=' || c.relname ||
				' table_bytes=' || pg_table_size(c.oid) || ' index_bytes=' || pg_indexes_size(c.oid) ||
				' per_binding=' || round((pg_total_relation_size(c.oid))::numeric / greatest((SELECT count(*) FROM ark.bindings), 1))
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = 'ark' AND c.relkind = 'r' ORDER BY c.relname;
			SELECT 'postgres total bindings=' || (SELECT count(*) FROM ark.bindings) ||
				' bytes=' || sum(pg_total_relation_size(c.oid)) ||
				' per_binding=' || round(sum(pg_total_relation_size(c.oid)) / greatest((SELECT count(*) FROM ark.bindings), 1))
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = 'ark' AND c.relkind = 'r';"
	fi
	kill "$caddy_pid"
	wait "$timeout_pid" 2>/dev/null || true
	caddy_pid=""
	if [ "$store" = bolt ]; then
		"$DATA/boltstats" "$DATA/store.db"
	else
		pg_stop
	fi
done
echo "uptime after: $(uptime | sed 's/.*load average/load average/')"
