#!/bin/bash
# compiled.sh: the measurements of compiled tables in BENCHMARKS.md
# ("Compiled tables"). Loopback only; every Caddy is started here, bounded
# by timeout, and killed by PID on exit. Run under flock /tmp/ark-bench.lock.
#
#   bench/compiled.sh open CADDY TABLE
#       start Caddy serving TABLE (compiled or JSON): the table's load time
#       from Caddy's log, start to first answer, VmRSS and Pss when ready
#   bench/compiled.sh reload CADDY A.arkt B.arkt KEYS [SWAPS]
#       serve A with watch; under wrk load (KEYS, varied spellings), rename
#       B, then A, ... over it SWAPS times (default 4); print RSS every
#       0.5 s and wrk's statuses and errors
#   bench/compiled.sh serve CADDY TABLE KEYS [DURATION]
#       start Caddy serving TABLE, run wrk (KEYS, varied spellings, every
#       status counted) for DURATION (default 10s): its result and VmRSS
#   bench/compiled.sh pss CADDY TABLE KEYS
#       two Caddy processes serving TABLE, each warmed by 5 s of wrk: their
#       Rss and Pss (/proc/PID/smaps_rollup) and the sums
#   bench/compiled.sh curve CADDY TABLE KEYS [SECONDS]
#       drop TABLE's pages from the page cache (POSIX_FADV_DONTNEED), start
#       Caddy serving it and load it with wrk (-c50, varied spellings) in
#       back-to-back 2 s runs for SECONDS (default 30): per run, req/s and
#       the server's major page faults; the table's load time first
#   bench/compiled.sh ratio CADDY TABLE KEYS [ROUNDS] [DURATION]
#       Caddy `respond` and Caddy serving TABLE side by side, each server
#       pinned to core 0 and wrk (-c50, varied spellings) to core 1; after
#       a warm-up (every status counted), ROUNDS (default 5) alternations
#       of DURATION (default 10s) each, the order flipped every round:
#       req/s of each, the ratio table/respond of each round, the load
#       (uptime, other processes' share of each core) and the median
#       ratio. BEFORE=CADDY2 adds a third server, the same table served by
#       another binary, to compare two builds in one run (BEFORE_TABLE=FILE:
#       that server serves FILE instead, e.g. the JSON the table was
#       compiled from; BEFORE_OPTIONS=LINES: lines for its ark block, as
#       TABLE_OPTIONS; BEFORE_NAME=NAME: its name in the output, default
#       "before"). PREGEN=N spells N
#       requests ahead (arks.lua pregen=N), so that wrk's core is not the
#       limit. WARMUP=DURATION (default 5s) sets the warm-up of each server,
#       e.g. 120s for a table too large for 5 s to bring its pages in.
#       Each round also gives the server's CPU time per request.
#       TABLE_OPTIONS=LINES adds lines to the table server's ark block,
#       e.g. resident_tables.
#       SAME=1 replaces `respond` by stock Caddy sending the table's own
#       answer to the first key of KEYS byte for byte (the `header`
#       directive for Location, Link and Vary, then `respond 302`), with no
#       lookup: the baseline issue 27 names ("the same answer").
set -euo pipefail
cmd=$1 caddy=$(realpath "$2")
shift 2
abs=()
for a in "$@"; do
	if [ -e "$a" ]; then abs+=("$(realpath "$a")"); else abs+=("$a"); fi
done
set -- "${abs[@]}"
root=$(cd "$(dirname "$0")/.." && pwd)
lua=$root/bench/wrk/arks.lua
work=$(mktemp -d /tmp/ark-compiled-bench.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# start PORT TABLE EXTRA: start Caddy on PORT serving TABLE (respond for
# Caddy's respond instead); sets spid. PIN and BIN (default $caddy) choose
# the cores and the binary.
start() {
	local port=$1 table=$2 extra=${3:-} site
	site="ark {
		naan 12345
		table $table
		foreign 404
		$extra
	}
	file_server"
	[ "$table" = respond ] && site='respond "ok" 200'
	[ "$table" = same ] && site=$same_site
	cat >"$work/$port.Caddyfile" <<EOF
{
	admin off
	persist_config off
	auto_https off
	log {
		output file $work/$port.log
		format json
	}
}
http://:$port {
	bind 127.0.0.1
	$site
}
EOF
	t0=$(date +%s.%N)
	timeout --kill-after=5 "${LIFETIME:-900}" ${PIN:-} "${BIN:-$caddy}" run --config "$work/$port.Caddyfile" >"$work/$port.out" 2>&1 &
	local tpid=$!
	pids+=("$tpid")
	spid=
	for _ in $(seq 100); do
		spid=$(awk '{print $1}' "/proc/$tpid/task/$tpid/children" 2>/dev/null) || true
		[ -n "$spid" ] && break
		sleep 0.01
	done
	pids+=("$spid")
	until curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/"; do
		kill -0 "$tpid" || { cat "$work/$port.out"; exit 1; }
		sleep 0.01
	done
	t1=$(date +%s.%N)
}
# same_answer_site URL: a site body with which stock Caddy sends the answer
# to URL (a 302 with Location, Link and Vary) byte for byte, apart from Date.
same_answer_site() {
	curl -s -o /dev/null -D - "$1" | tr -d '\r' | awk '
		/^HTTP\// { if ($2 != 302) { print "the answer is " $2 ", not 302" > "/dev/stderr"; exit 1 } }
		tolower($1) ~ /^(location|link|vary):$/ { name = $1; sub(/:$/, "", name); v = $0; sub(/^[^:]*: /, "", v); printf "header %s `%s`\n", name, v }
		END { print "respond 302" }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
kib() { awk -v f="$2" '$1 == f":" {print $2}' "$1"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
loadtime() { grep '"table loaded"' "$work/$1.log" | tail -1 | sed 's/.*"duration":\([0-9.e+-]*\).*/\1/'; }

case $cmd in
open)
	start 23180 "$1"
	echo "table load (Caddy's log): $(awk -v d="$(loadtime 23180)" 'BEGIN { printf "%.1f ms", d * 1000 }')"
	echo "start to first answer: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f s", b - a }')"
	echo "ready: VmRSS $(mib "$(kib /proc/$spid/status VmRSS)") MiB, Pss $(mib "$(kib /proc/$spid/smaps_rollup Pss)") MiB, anonymous $(mib "$(kib /proc/$spid/smaps_rollup Anonymous)") MiB"
	;;
reload)
	a=$1 b=$2 keys=$3 swaps=${4:-4}
	cp "$a" "$work/t.arkt"
	start 23180 "$work/t.arkt" "watch 1s"
	echo "ready: VmRSS $(mib "$(kib /proc/$spid/status VmRSS)") MiB"
	wrk -t1 -c20 -d$((swaps * 8 + 8))s --timeout 10s -s "$lua" http://127.0.0.1:23180 -- keys="$keys" mode=vary check=1 >"$work/wrk.txt" 2>&1 &
	wpid=$!
	pids+=("$wpid")
	(while kill -0 "$wpid" 2>/dev/null; do
		echo "$(date +%s.%N | cut -c7-14) rss $(mib "$(kib /proc/$spid/status VmRSS)") MiB:" \
			"anon $(mib "$(kib /proc/$spid/status RssAnon)"), file $(mib "$(kib /proc/$spid/status RssFile)")"
		sleep 0.5
	done) >"$work/rss.txt" &
	for i in $(seq "$swaps"); do
		sleep 6
		src=$b
		[ $((i % 2)) = 0 ] && src=$a
		cp "$src" "$work/t.new" && mv "$work/t.new" "$work/t.arkt"
		echo "$(date +%s.%N | cut -c7-14) renamed $(basename "$src") over the table" >>"$work/events.txt"
		until [ "$(grep -c 'table swapped in' "$work/23180.log")" -ge "$i" ]; do sleep 0.1; done
		echo "$(date +%s.%N | cut -c7-14) swapped in" >>"$work/events.txt"
	done
	wait "$wpid" || true
	sleep 0.6
	sort -n "$work/rss.txt" "$work/events.txt"
	grep -E 'Requests/sec|ARKS_RESULT|Socket errors|Non-2xx' "$work/wrk.txt"
	echo "swaps logged: $(grep -c 'table swapped in' "$work/23180.log")"
	;;
curve)
	table=$1 keys=$2 secs=${3:-30}
	python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$table"
	echo "page cache: $(awk '$1 == "Cached:" {print $2}' /proc/meminfo) KiB cached before the start"
	start 23180 "$table"
	echo "table load (Caddy's log): $(awk -v d="$(loadtime 23180)" 'BEGIN { printf "%.1f ms", d * 1000 }'); start to first answer: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f s", b - a }')"
	echo "| from s | req/s | major faults |"
	echo "| ---: | ---: | ---: |"
	for i in $(seq 0 2 $((secs - 2))); do
		f0=$(awk '{print $12}' "/proc/$spid/stat")
		rps=$(wrk -t1 -c50 -d2s --timeout 10s -s "$lua" http://127.0.0.1:23180 -- keys="$keys" mode=vary | awk '/^Requests\/sec/ {printf "%.0f", $2}')
		f1=$(awk '{print $12}' "/proc/$spid/stat")
		echo "| $i | $rps | $((f1 - f0)) |"
	done
	;;
serve)
	start 23180 "$1"
	wrk -t1 -c20 -d"${3:-10s}" --timeout 10s -s "$lua" http://127.0.0.1:23180 -- keys="$2" mode=vary check=1 | grep -E 'ARKS_RESULT'
	echo "after: VmRSS $(mib "$(kib /proc/$spid/status VmRSS)") MiB, anonymous $(mib "$(kib /proc/$spid/smaps_rollup Anonymous)") MiB"
	;;
pss)
	table=$1 keys=$2
	start 23180 "$table"
	p1=$spid
	start 23181 "$table"
	p2=$spid
	for port in 23180 23181; do
		wrk -t1 -c20 -d5s -s "$lua" "http://127.0.0.1:$port" -- keys="$keys" mode=vary >/dev/null 2>&1
	done
	r=0 p=0 an=0
	for pid in $p1 $p2; do
		rk=$(kib /proc/$pid/smaps_rollup Rss) pk=$(kib /proc/$pid/smaps_rollup Pss) ak=$(kib /proc/$pid/smaps_rollup Anonymous)
		echo "pid $pid: Rss $(mib "$rk") MiB, Pss $(mib "$pk") MiB, of which anonymous (heap) $(mib "$ak") MiB"
		r=$((r + rk)) p=$((p + pk)) an=$((an + ak))
	done
	echo "both: Rss $(mib $r) MiB, Pss $(mib $p) MiB, anonymous $(mib $an) MiB"
	;;
ratio)
	table=$1 keys=$2 rounds=${3:-5} dur=${4:-10s}
	warm_s=${WARMUP:-5s}
	LIFETIME=$((rounds * 3 * (${dur%s} + 10) + 3 * ${warm_s%s} + 120))
	PIN="taskset -c 0"
	names=(respond compiled) ports=(23190 23191) spids=()
	if [ -n "${SAME:-}" ]; then
		start 23191 "$table" "${TABLE_OPTIONS:-}"
		tspid=$spid
		same_site=$(same_answer_site "http://127.0.0.1:23191/$(head -1 "$keys")")
		echo "the same answer, from stock Caddy:"
		sed 's/^/  /' <<<"$same_site"
		start 23190 same
		names[0]=same
		spids+=("$spid" "$tspid")
	else
		start 23190 respond
		spids+=("$spid")
		start 23191 "$table" "${TABLE_OPTIONS:-}"
		spids+=("$spid")
	fi
	if [ -n "${BEFORE:-}" ]; then
		BIN=$(realpath "$BEFORE") start 23192 "${BEFORE_TABLE:-$table}" "${BEFORE_OPTIONS:-}"
		spids+=("$spid")
		names+=("${BEFORE_NAME:-before}") ports+=(23192)
	fi
	echo "uptime at start: $(uptime)"
	warmup=${WARMUP:-5s}
	echo "warm-up ($warmup each, every status counted):"
	for i in "${!names[@]}"; do
		echo "  ${names[$i]}: $(taskset -c 1 wrk -t1 -c50 -d"$warmup" --timeout 10s -s "$lua" "http://127.0.0.1:${ports[$i]}" -- keys="$keys" mode=vary check=1 ${PREGEN:+pregen=$PREGEN} |
			sed -n 's/.*rps=\([^ ]*\).* statuses=\(.*\)/\1 req\/s, statuses \2/p')"
	done
	# busy: the busy ticks of cores 0 and 1 (user, nice, system, irq, softirq, steal)
	busy() { awk '$1 == "cpu0" || $1 == "cpu1" { printf "%d ", $2 + $3 + $4 + $7 + $8 + $9 } END { print "" }' /proc/stat; }
	# own PID: the CPU ticks of a process (user + system)
	own() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
	declare -A rps cpu
	for r in $(seq "$rounds"); do
		order=("${!names[@]}")
		[ $((r % 2)) = 0 ] && mapfile -t order < <(printf '%s\n' "${!names[@]}" | tac)
		for i in "${order[@]}"; do
			read -r b0 b1 < <(busy)
			s0=$(own "${spids[$i]}")
			u0=$(cut -d' ' -f1 /proc/uptime)
			out=$(taskset -c 1 wrk -t1 -c50 -d"$dur" --timeout 10s --latency -s "$lua" "http://127.0.0.1:${ports[$i]}" -- keys="$keys" mode=vary ${PREGEN:+pregen=$PREGEN})
			read -r a0 a1 < <(busy)
			s1=$(own "${spids[$i]}")
			u1=$(cut -d' ' -f1 /proc/uptime)
			rps[$r.$i]=$(sed -n 's/.*ARKS_RESULT rps=\([^ ]*\).*/\1/p' <<<"$out")
			reqs=$(sed -n 's/.*ARKS_RESULT .* requests=\([0-9]*\).*/\1/p' <<<"$out")
			cpu[$r.$i]=$(awk -v s=$((s1 - s0)) -v n="$reqs" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", s / hz / n * 1e6 }')
			# core 0: the share not taken by the server measured; core 1: all of it (wrk's core)
			load=$(awk -v b0="$b0" -v a0="$a0" -v b1="$b1" -v a1="$a1" -v s=$((s1 - s0)) -v u0="$u0" -v u1="$u1" -v hz="$(getconf CLK_TCK)" \
				'BEGIN { t = (u1 - u0) * hz; o = (a0 - b0 - s) / t * 100; if (o < 0) o = 0
					printf "server %.0f%% of core 0, others %.0f%%; core 1 %.0f%% busy", s / t * 100, o, (a1 - b1) / t * 100 }')
			echo "round $r ${names[$i]}: ${rps[$r.$i]} req/s, ${cpu[$r.$i]} µs of server CPU a request, $(sed -n 's/.*p99_ms=\([^ ]*\).*/p99 \1 ms/p' <<<"$out"); $load; loadavg $(cut -d' ' -f1 /proc/loadavg)"
		done
	done
	for i in "${!names[@]}"; do
		[ "$i" = 0 ] && continue
		ratios=() cpuratios=()
		for r in $(seq "$rounds"); do
			ratios+=("$(awk -v a="${rps[$r.$i]}" -v b="${rps[$r.0]}" 'BEGIN { printf "%.3f", a / b }')")
			cpuratios+=("$(awk -v a="${cpu[$r.$i]}" -v b="${cpu[$r.0]}" 'BEGIN { printf "%.3f", b / a }')")
		done
		echo "${names[$i]}/${names[0]} req/s by round: ${ratios[*]}; median $(printf '%s\n' "${ratios[@]}" | median)"
		echo "${names[$i]}/${names[0]} requests per CPU second (${names[0]}'s CPU a request / this one's) by round: ${cpuratios[*]}; median $(printf '%s\n' "${cpuratios[@]}" | median)"
	done
	echo "uptime at end: $(uptime)"
	;;
*)
	echo "usage: see the head of $0" >&2
	exit 2
	;;
esac
