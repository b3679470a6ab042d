#!/usr/bin/env bash
# Load test of target checking (targets_check, docs/targets.md), in one run:
#  1. a pass: N targets spread over O local origins, all made due at once
#     (POST <api>/targets/check), checked with host_interval; how long the
#     pass takes, Caddy's RSS, the store's size, and the origins' side of
#     politeness (the shortest gap between two arrivals at one origin, the
#     most requests one origin had at once);
#  2. resolution throughput with checking off and on (a pass running:
#     with the defaults, with the pass's host_interval, and with that and
#     no max_rate), alternated, the median of RUNS wrk runs each.
# Loopback only; every process is started here, bounded by `timeout`, and
# killed by PID on exit. Run it under flock /tmp/ark-bench.lock.
#
#   bench/targets.sh                     # 100000 targets on 200 origins
#   bench/targets.sh -n 10000 -r 1 -d 3s # quick
set -euo pipefail

usage() {
	cat <<'EOF'
usage: bench/targets.sh [options]
  -n N        targets, one per identifier (env TARGETS, default 100000)
  -o O        origins (env ORIGINS, default 200)
  -i DUR      host_interval of the pass (env HOST_INTERVAL, default 10ms)
  -l DUR      how long an origin takes to answer (env LATENCY, default 2ms)
  -r RUNS     wrk runs per configuration (env RUNS, default 3)
  -d DUR      duration of each wrk run (env DURATION, default 10s)
  -b CADDY    use this caddy binary instead of building ./cmd/caddy (env CADDY)
  -p PORT     Caddy's port; the admin endpoint is PORT+1 (env BASE_PORT, default 19480)
  -q PORT     the first origin's port (env ORIGIN_PORT, default 21000)
  -h          this help
EOF
}

TARGETS=${TARGETS:-100000}
ORIGINS=${ORIGINS:-200}
HOST_INTERVAL=${HOST_INTERVAL:-10ms}
LATENCY=${LATENCY:-2ms}
RUNS=${RUNS:-3}
DURATION=${DURATION:-10s}
CADDY=${CADDY:-}
BASE_PORT=${BASE_PORT:-19480}
ORIGIN_PORT=${ORIGIN_PORT:-21000}
while getopts "n:o:i:l:r:d:b:p:q:h" o; do
	case $o in
	n) TARGETS=$OPTARG ;;
	o) ORIGINS=$OPTARG ;;
	i) HOST_INTERVAL=$OPTARG ;;
	l) LATENCY=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	d) DURATION=$OPTARG ;;
	b) CADDY=$OPTARG ;;
	p) BASE_PORT=$OPTARG ;;
	q) ORIGIN_PORT=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=$ROOT/bench/out
DATA=${BENCH_DATA:-/work/bench-data}/targets/n$TARGETS-o$ORIGINS-p$ORIGIN_PORT
WORK=$OUT/targets
mkdir -p "$OUT" "$DATA" "$WORK" "$OUT/xdg"
ADMIN=$((BASE_PORT + 1))
UNLIMITED=1000000 # a max_rate that never binds
KEY=bench-secret
HASH=$(printf %s "$KEY" | sha256sum | cut -d' ' -f1)

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
anon_kib() { awk '/^RssAnon:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
field() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" "$2" | head -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

command -v wrk >/dev/null || die "wrk not found (apt-get install -y wrk)"
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
timeout 300 go build -o "$OUT/targetload" ./bench/targetload
if [ ! -s "$DATA/table.json" ]; then
	log "generating $TARGETS targets on $ORIGINS origins in $DATA"
	timeout 600 "$OUT/targetload" table -n "$TARGETS" -origins "$ORIGINS" -port "$ORIGIN_PORT" -o "$DATA/table.json" -keys "$DATA/keys.txt"
fi

# start_origins REPORT: the origins, on the client's core, until stopped
ORIGINS_PID=
start_origins() {
	timeout --kill-after=5 7200 "${PIN_CLIENT[@]}" "$OUT/targetload" origins -origins "$ORIGINS" -port "$ORIGIN_PORT" \
		-latency "$LATENCY" -report "$1" >"$WORK/origins.log" 2>&1 &
	ORIGINS_PID=$!
	PIDS+=("$ORIGINS_PID")
	for _ in $(seq 100); do
		grep -q ready "$WORK/origins.log" 2>/dev/null && return 0
		sleep 0.1
	done
	die "the origins did not start: $(cat "$WORK/origins.log")"
}
# stop_origins REPORT: stop them and wait for their report
stop_origins() {
	local tpid=$ORIGINS_PID child
	child=$(awk '{print $1}' "/proc/$tpid/task/$tpid/children" 2>/dev/null || true)
	kill -TERM "${child:-$tpid}" 2>/dev/null || true
	for _ in $(seq 100); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	log "warning: no origins report"
}

# caddyfile CHECK DB LEVEL: a site with the table, the API and, when CHECK
# is "<host_interval> [<max_rate>]", targets_check; DB is the bolt store
# ("" for none)
caddyfile() {
	local check=$1 db=$2 level=${3:-WARN}
	cat <<EOF
{
	admin 127.0.0.1:$ADMIN
	persist_config off
	auto_https off
	log {
		level $level
	}
}

http://:$BASE_PORT {
	bind 127.0.0.1
	ark {
		naan 12345
		table $DATA/table.json
		foreign 404
EOF
	if [ -n "$db" ]; then
		cat <<EOF
		store bolt $db
		api /api/ark {
			key bench $HASH write:*
		}
EOF
	fi
	if [ -n "$check" ]; then
		local hi=${check%% *} rate=
		[ "$hi" = "$check" ] || rate="max_rate ${check#* }"
		cat <<EOF
		targets_check {
			interval 1h
			host_interval $hi
			timeout 5s
			allow_private
			$rate
		}
EOF
	fi
	printf '\t}\n}\n'
}

# start_caddy NAME CHECK DB [LEVEL]: start Caddy on the server's core;
# sets CADDY_PID
CADDY_TPID= CADDY_PID=
start_caddy() {
	local cf=$WORK/$1.Caddyfile
	caddyfile "$2" "$3" "${4:-}" >"$cf"
	XDG_DATA_HOME=$OUT/xdg XDG_CONFIG_HOME=$OUT/xdg timeout --kill-after=10 3600 "${PIN_SERVER[@]}" \
		"$CADDY" run --config "$cf" --adapter caddyfile >"$WORK/$1.server.log" 2>&1 &
	CADDY_TPID=$!
	PIDS+=("$CADDY_TPID")
	CADDY_PID=
	for _ in $(seq 600); do
		CADDY_PID=$(awk '{print $1}' "/proc/$CADDY_TPID/task/$CADDY_TPID/children" 2>/dev/null || true)
		if [ -n "$CADDY_PID" ] && curl -s -o /dev/null "http://127.0.0.1:$BASE_PORT/ark:12345/x500000000"; then
			return 0
		fi
		sleep 0.1
	done
	die "caddy did not start: $(tail -5 "$WORK/$1.server.log")"
}
stop_caddy() {
	kill -TERM "${CADDY_PID:-$CADDY_TPID}" 2>/dev/null || true
	for _ in $(seq 100); do
		kill -0 "$CADDY_TPID" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "${CADDY_PID:-$CADDY_TPID}" 2>/dev/null || true
}
# checks_total: caddy_ark_target_checks_total, every result
checks_total() {
	curl -s "http://127.0.0.1:$ADMIN/metrics" | awk '/^caddy_ark_target_checks_total/ { s += $2 } END { printf "%d\n", s }'
}
# check_all: POST <api>/targets/check for every identifier
check_all() {
	curl -s -X POST -H "Authorization: Bearer $KEY" "http://127.0.0.1:$BASE_PORT/api/ark/targets/check"
}

# ---- 1. a pass
rm -f "$WORK/pass.db" "$WORK"/on-*.db "$WORK/origins.pass.txt"
start_origins "$WORK/origins.pass.txt"
log "pass: $TARGETS targets, $ORIGINS origins, host_interval $HOST_INTERVAL, origins answer in $LATENCY"
start_caddy pass "$HOST_INTERVAL $UNLIMITED" "$WORK/pass.db" INFO
rss_start=$(rss_kib "$CADDY_PID")
anon_start=$(anon_kib "$CADDY_PID")
base=$(checks_total)
t0=$(date +%s.%N)
answer=$(check_all)
case $answer in *"\"identifiers\": $TARGETS"*) ;; *) die "targets/check: $answer" ;; esac
rss_max=$rss_start anon_max=$anon_start
while :; do
	done_=$(($(checks_total) - base))
	r=$(rss_kib "$CADDY_PID")
	[ "$r" -gt "$rss_max" ] && rss_max=$r
	r=$(anon_kib "$CADDY_PID")
	[ "$r" -gt "$anon_max" ] && anon_max=$r
	[ "$done_" -ge "$TARGETS" ] && break
	awk -v t0="$t0" -v now="$(date +%s.%N)" 'BEGIN { exit !(now - t0 > 3000) }' && die "the pass did not end within 3000 s ($done_ checks)"
	sleep 1
done
t1=$(date +%s.%N)
elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
rate=$(awk -v n="$TARGETS" -v e="$elapsed" 'BEGIN { printf "%.0f", n / e }')
stop_caddy
db_size=$(du -k "$WORK/pass.db" | cut -f1)
stop_origins "$WORK/origins.pass.txt"
sweep=$(grep -o '"msg":"targets_check: swept the targets".*' "$WORK/pass.server.log" | head -1 || true)
log "pass: $elapsed s, $rate checks/s, RSS $((rss_start / 1024)) -> max $((rss_max / 1024)) MiB (anonymous $((anon_start / 1024)) -> $((anon_max / 1024))), store $((db_size / 1024)) MiB; origins: $(cat "$WORK/origins.pass.txt"); first sweep: $sweep"

# ---- 2. resolution throughput, checking off and on
start_origins "$WORK/origins.load.txt"
declare -A RPS P99 CHK
CONFIGS=(off on on-fast on-unlimited)
for i in $(seq "$RUNS"); do
	for cfg in "${CONFIGS[@]}"; do
		case $cfg in
		off) start_caddy "$cfg" "" "" ;;
		on) start_caddy "$cfg" 1s "$WORK/$cfg.db" INFO ;;
		on-fast) start_caddy "$cfg" "$HOST_INTERVAL" "$WORK/$cfg.db" INFO ;;
		on-unlimited) start_caddy "$cfg" "$HOST_INTERVAL $UNLIMITED" "$WORK/$cfg.db" INFO ;;
		esac
		if [ "$cfg" != off ]; then
			# the start's sweep, then the pass made due (synchronous): both
			# done before wrk, which measures checking as it goes on
			for _ in $(seq 600); do
				grep -q 'swept the targets' "$WORK/$cfg.server.log" && break
				sleep 0.1
			done
			check_all >/dev/null
		fi
		sleep 2
		before=$(checks_total)
		o=$WORK/$cfg.wrk.$i.txt
		timeout --kill-after=5 $((${DURATION%s} + 60)) "${PIN_CLIENT[@]}" \
			wrk -t1 -c50 -d"$DURATION" --timeout 10s --latency -s bench/wrk/arks.lua "http://127.0.0.1:$BASE_PORT" \
			-- keys="$DATA/keys.txt" mode=canonical >"$o" 2>&1 || true
		checked=$(($(checks_total) - before))
		stop_caddy
		grep -q ARKS_RESULT "$o" || die "wrk failed: $(tail -3 "$o")"
		RPS[$cfg]+="$(field rps "$o") "
		P99[$cfg]+="$(field p99_ms "$o") "
		CHK[$cfg]+="$checked "
		log "$cfg run $i: $(field rps "$o") req/s, p99 $(field p99_ms "$o") ms, statuses $(field statuses "$o"), checks made during it $checked"
	done
done
stop_origins "$WORK/origins.load.txt"

echo
echo "| | value |"
echo "|---|---|"
echo "| pass of $TARGETS targets on $ORIGINS origins, host_interval $HOST_INTERVAL, max_rate $UNLIMITED, answers in $LATENCY | $elapsed s ($rate checks/s) |"
echo "| Caddy RSS before the pass / at most during it | $((rss_start / 1024)) / $((rss_max / 1024)) MiB |"
echo "| of which anonymous (heap), not the store's mapped file | $((anon_start / 1024)) / $((anon_max / 1024)) MiB |"
echo "| store file after the pass | $((db_size / 1024)) MiB |"
echo "| origins' side | $(cat "$WORK/origins.pass.txt") |"
echo "| the first sweep (Caddy's log) | $sweep |"
echo
echo "off: no targets_check; on: the defaults (host_interval 1s, max_rate 50); on-fast: host_interval $HOST_INTERVAL;"
echo "on-unlimited: host_interval $HOST_INTERVAL and max_rate $UNLIMITED; each on run after its start's sweep and with a pass made due before wrk"
echo
echo "| checking | req/s (median of $RUNS) | p99 ms | checks during a run |"
echo "|---|---|---|---|"
for cfg in "${CONFIGS[@]}"; do
	echo "| $cfg | $(tr ' ' '\n' <<<"${RPS[$cfg]}" | grep . | median) | $(tr ' ' '\n' <<<"${P99[$cfg]}" | grep . | median) | $(tr ' ' '\n' <<<"${CHK[$cfg]}" | grep . | median) |"
done
