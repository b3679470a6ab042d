#!/usr/bin/env bash
# What resolution statistics cost a request, in one run: two Caddy
# processes serve the same redirect table, "off" without stats and "on"
# with stats (and a bolt store), both pinned to one core; wrk, on the
# other, loads them in turn, in pairs back to back (off then on, then on
# then off), so that the machine's drift falls on both alike. Reports each
# pair and the medians of req/s, p99 and of the per-pair ratio on/off,
# then stops "on" with SIGTERM and reads what its last flush wrote.
# Loopback only; every process is started here and stopped by PID.
#
#   bench/statsab.sh                  # 1M entries, 10 pairs of 10 s
#   bench/statsab.sh -n 100000 -p 3 -d 3s
set -euo pipefail

ENTRIES=1000000 PAIRS=10 DURATION=10s CONNECTIONS=50 CADDY=
while getopts n:p:d:c:b:h opt; do
	case $opt in
	n) ENTRIES=$OPTARG ;;
	p) PAIRS=$OPTARG ;;
	d) DURATION=$OPTARG ;;
	c) CONNECTIONS=$OPTARG ;;
	b) CADDY=$OPTARG ;;
	*)
		echo "usage: bench/statsab.sh [-n entries] [-p pairs] [-d duration] [-c connections] [-b caddy]" >&2
		exit 2
		;;
	esac
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=$ROOT/bench/out
DATA=$OUT/data/n$ENTRIES-s1
WORK=$OUT/statsab
LUA=$ROOT/bench/wrk/arks.lua
mkdir -p "$WORK" "$OUT/xdg"
log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" "$2" | head -1; }

[ -f "$DATA/redirect.json" ] && [ -f "$DATA/keys.txt" ] ||
	die "no table in $DATA: make it with bench/run.sh -n $ENTRIES -c ark-redirect -r 1 -d 1s"
command -v wrk >/dev/null || die "wrk not found (apt-get install -y wrk)"
. "$ROOT/bench/procs.sh"
if [ -z "$CADDY" ]; then
	timeout 900 go build -o "$OUT/caddy" ./cmd/caddy || die "go build failed"
	CADDY=$OUT/caddy
fi

# start NAME PORT STATS: a caddy serving the table, stats on when STATS=1
declare -A PORT PID
start() {
	local name=$1 port=$2 stats=
	[ "$3" = 1 ] && stats="store bolt $WORK/stats.db
		stats"
	cat >"$WORK/$name.Caddyfile" <<EOF
{
	admin off
	persist_config off
	auto_https off
	log {
		level WARN
	}
}

http://:$port {
	bind 127.0.0.1
	ark {
		naan 12345
		table $DATA/redirect.json
		foreign 404
		$stats
	}
}
EOF
	XDG_DATA_HOME=$OUT/xdg XDG_CONFIG_HOME=$OUT/xdg timeout --kill-after=10 3600 taskset -c 0 \
		"$CADDY" run --config "$WORK/$name.Caddyfile" --adapter caddyfile >"$WORK/$name.log" 2>&1 &
	PID[$name]=$!
	PIDS+=("$!")
	PORT[$name]=$port
	for _ in $(seq 3000); do
		curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/" && return 0
		kill -0 "${PID[$name]}" 2>/dev/null || break
		sleep 0.02
	done
	die "$name did not start: $(tail -n 5 "$WORK/$name.log")"
}

rm -f "$WORK/stats.db"
start off 19201 0
start on 19202 1
log "both ready: off on :${PORT[off]}, on on :${PORT[on]} (core 0), wrk on core 1"
echo "date: $(date -u '+%F %T') UTC; load: $(cut -d' ' -f1-3 /proc/loadavg); $ENTRIES entries; $PAIRS pairs of $DURATION; wrk -t1 -c$CONNECTIONS mode=vary"
echo
echo "| pair | order | off req/s | on req/s | on/off | off p99 ms | on p99 ms |"
echo "|---:|---|---:|---:|---:|---:|---:|"
ratios=() offs=() ons=() offp=() onp=() total=0
for i in $(seq "$PAIRS"); do
	order="off on"
	[ $((i % 2)) = 0 ] && order="on off"
	declare -A rps p99
	for name in $order; do
		o=$WORK/$name.pair$i.txt
		timeout 120 taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"$DURATION" --timeout 10s --latency -s "$LUA" \
			"http://127.0.0.1:${PORT[$name]}" -- keys="$DATA/keys.txt" mode=vary >"$o" 2>&1 || true
		rps[$name]=$(field rps "$o")
		p99[$name]=$(field p99_ms "$o")
		[ -n "${rps[$name]}" ] || die "wrk failed: $(tail -n 3 "$o")"
		[ "$name" = on ] && total=$((total + $(field requests "$o")))
	done
	r=$(awk -v a="${rps[on]}" -v b="${rps[off]}" 'BEGIN { printf "%.3f", a / b }')
	ratios+=("$r") offs+=("${rps[off]}") ons+=("${rps[on]}") offp+=("${p99[off]}") onp+=("${p99[on]}")
	echo "| $i | ${order/ /, } | ${rps[off]} | ${rps[on]} | $r | ${p99[off]} | ${p99[on]} |"
done
echo "| median | | $(printf '%s\n' "${offs[@]}" | median) | $(printf '%s\n' "${ons[@]}" | median) | $(printf '%s\n' "${ratios[@]}" | median) | $(printf '%s\n' "${offp[@]}" | median) | $(printf '%s\n' "${onp[@]}" | median) |"
echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# Stop "on" as Caddy stops (its last counts are written), then count what
# its store holds.
kill -TERM "${PID[on]}"
for _ in $(seq 150); do kill -0 "${PID[on]}" 2>/dev/null || break; sleep 0.1; done
grep -h "not counted" "$WORK/on.log" || true
cat >"$WORK/on-read.Caddyfile" <<EOF
{
	admin off
	persist_config off
	auto_https off
}

http://:19203 {
	bind 127.0.0.1
	ark {
		naan 12345
		store bolt $WORK/stats.db
		stats
		api /api {
			key bench $(printf %s bench-secret | sha256sum | cut -d' ' -f1) read:*
		}
	}
}
EOF
XDG_DATA_HOME=$OUT/xdg XDG_CONFIG_HOME=$OUT/xdg timeout --kill-after=10 120 \
	"$CADDY" run --config "$WORK/on-read.Caddyfile" --adapter caddyfile >"$WORK/on-read.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 500); do
	counted=$(curl -s --max-time 2 -H "Authorization: Bearer bench-secret" "http://127.0.0.1:19203/api/stats?days=2" |
		awk '/"total"/ { gsub(/[^0-9]/, ""); print; exit }') && [ -n "$counted" ] && break
	sleep 0.02
done
echo "on: wrk counted $total responses in its measured runs; its store holds $counted requests (the measured runs, and what wrk sent but did not count when it stopped)"
