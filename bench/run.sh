#!/usr/bin/env bash
# Load test of caddy-ark against stock Caddy baselines, in one run.
# See bench/README.md. Loopback only; every process is started here, bounded
# by `timeout`, and killed by PID on exit.
#
#   bench/run.sh                       # 1M entries, 5 x 10 s per config
#   bench/run.sh -n 100000 -r 1 -d 3s  # quick
#   bench/run.sh -c respond,file_server,map-redir --caddy /path/to/caddy
set -euo pipefail

usage() {
	cat <<'EOF'
usage: bench/run.sh [options]
  -n N        table entries (env ENTRIES, default 1000000)
  -r RUNS     measured wrk runs per config; the median is reported (env RUNS, default 5)
  -d DUR      duration of each run, wrk syntax: 10s, 1m (env DURATION, default 10s)
  -c LIST     configs, comma-separated (env CONFIGS, default all):
              ark-redirect ark-redirect-canon ark-inplace ark-compiled respond file_server map-redir
              ark-redirect-stats (not in the default list: ark-redirect with stats on)
              gomap (not in the default list: a bare Go net/http server with a Go map, bench/gomap)
  -C CONNS    wrk connections (env CONNECTIONS, default 50)
  -s SEED     table seed (env SEED, default 1)
  -M          skip map-redir (Caddy map needs ~30 s and ~2.6 GiB at 1M entries)
  -b CADDY    use this caddy binary instead of building ./cmd/caddy (env CADDY)
  -t SECS     startup timeout (env STARTUP_TIMEOUT, default 120)
  -T SECS     startup timeout for map-redir (env MAP_STARTUP_TIMEOUT, default 600)
  -p PORT     first port; each config gets its own (env BASE_PORT, default 19080)
  -w SECS     before each config and each run, wait up to SECS for the machine
              to be idle (under 10% CPU over 1 s) (env QUIET_WAIT, default 0: do not wait)
  -h          this help
env: SERVER_CPU (default 0), CLIENT_CPU (default 1), CHECK_DURATION (default 2s)
EOF
}

ENTRIES=${ENTRIES:-1000000}
RUNS=${RUNS:-5}
DURATION=${DURATION:-10s}
CONFIGS=${CONFIGS:-ark-redirect,ark-redirect-canon,ark-inplace,ark-compiled,respond,file_server,map-redir}
CONNECTIONS=${CONNECTIONS:-50}
SEED=${SEED:-1}
CADDY=${CADDY:-}
STARTUP_TIMEOUT=${STARTUP_TIMEOUT:-120}
MAP_STARTUP_TIMEOUT=${MAP_STARTUP_TIMEOUT:-600}
BASE_PORT=${BASE_PORT:-19080}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
CHECK_DURATION=${CHECK_DURATION:-2s}
QUIET_WAIT=${QUIET_WAIT:-0}
SKIP_MAP=0

while getopts "n:r:d:c:C:s:Mb:t:T:p:w:h" o; do
	case $o in
	n) ENTRIES=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	d) DURATION=$OPTARG ;;
	c) CONFIGS=$OPTARG ;;
	C) CONNECTIONS=$OPTARG ;;
	s) SEED=$OPTARG ;;
	M) SKIP_MAP=1 ;;
	b) CADDY=$OPTARG ;;
	t) STARTUP_TIMEOUT=$OPTARG ;;
	T) MAP_STARTUP_TIMEOUT=$OPTARG ;;
	p) BASE_PORT=$OPTARG ;;
	w) QUIET_WAIT=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=$ROOT/bench/out
DATA=$OUT/data/n$ENTRIES-s$SEED
WORK=$OUT/work
LUA=$ROOT/bench/wrk/arks.lua
mkdir -p "$OUT" "$DATA" "$WORK" "$OUT/results" "$OUT/xdg"

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# seconds in a wrk duration (10, 10s, 2m, 1h)
secs() {
	local d=$1
	case $d in
	*h) echo $((${d%h} * 3600)) ;;
	*m) echo $((${d%m} * 60)) ;;
	*s) echo "${d%s}" ;;
	*) echo "$d" ;;
	esac
}
DUR_S=$(secs "$DURATION")
CHECK_S=$(secs "$CHECK_DURATION")
[[ $DUR_S =~ ^[0-9]+$ && $DUR_S -gt 0 ]] || die "bad duration $DURATION"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "bad runs $RUNS"
[[ $ENTRIES =~ ^[0-9]+$ ]] || die "bad entries $ENTRIES"

command -v wrk >/dev/null || die "wrk not found (apt-get install -y wrk)"
command -v curl >/dev/null || die "curl not found"
PIN_SERVER=() PIN_CLIENT=()
if command -v taskset >/dev/null && [ "$(nproc --all)" -ge 2 ]; then
	PIN_SERVER=(taskset -c "$SERVER_CPU")
	PIN_CLIENT=(taskset -c "$CLIENT_CPU")
else
	log "warning: no taskset or fewer than 2 CPUs: server and wrk are not pinned"
fi

# ---- processes: every PID we start is recorded and killed on exit
. "$ROOT/bench/procs.sh"

# ---- build
if [ -z "$CADDY" ]; then
	log "building ./cmd/caddy"
	timeout 900 go build -o "$OUT/caddy" ./cmd/caddy || die "go build ./cmd/caddy failed (use -b CADDY for a prebuilt binary)"
	CADDY=$OUT/caddy
fi
[ -x "$CADDY" ] || die "no caddy binary at $CADDY"
CADDY=$(cd "$(dirname "$CADDY")" && pwd)/$(basename "$CADDY")
timeout 300 go build -o "$OUT/gentable" ./bench/gentable
timeout 300 go build -o "$OUT/gomap" ./bench/gomap

# ---- configs
IFS=, read -r -a CFGS <<<"$CONFIGS"
if [ "$SKIP_MAP" = 1 ]; then
	kept=()
	for c in "${CFGS[@]}"; do [ "$c" = map-redir ] || kept+=("$c"); done
	CFGS=("${kept[@]}")
fi
want() {
	local c
	for c in "${CFGS[@]}"; do [ "$c" = "$1" ] && return 0; done
	return 1
}
for c in "${CFGS[@]}"; do
	case $c in
	ark-redirect | ark-redirect-canon | ark-inplace | ark-compiled | respond | file_server | map-redir | ark-redirect-stats | gomap) ;;
	*) die "unknown config $c" ;;
	esac
done

# ---- tables (same seed: same ids in both tables)
log "generating tables: $ENTRIES entries, seed $SEED, in $DATA"
mapflag=()
want map-redir && mapflag=(-caddy-map "$DATA/map-redir.caddy")
timeout 600 "$OUT/gentable" -n "$ENTRIES" -seed "$SEED" -kind redirect -o "$DATA/redirect.json" \
	-keys "$DATA/keys.txt" "${mapflag[@]}"
timeout 600 "$OUT/gentable" -n "$ENTRIES" -seed "$SEED" -kind inplace -o "$DATA/inplace.json" -site "$DATA/site"
find "$DATA/site/objects" -name '*.html' -printf '/objects/%f\n' >"$DATA/objects.txt"
if want ark-compiled; then
	log "compiling the redirect table"
	timeout 600 "$CADDY" ark compile "$DATA/redirect.json" -o "$DATA/redirect.arkt" >&2
fi

# caddyfile CONFIG PORT: the Caddyfile of a configuration
caddyfile() {
	local cfg=$1 port=$2
	cat <<EOF
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
EOF
	case $cfg in
	ark-redirect | ark-redirect-canon | ark-inplace | ark-compiled | ark-redirect-stats)
		local table=$DATA/redirect.json stats=
		[ "$cfg" = ark-inplace ] && table=$DATA/inplace.json
		[ "$cfg" = ark-compiled ] && table=$DATA/redirect.arkt
		[ "$cfg" = ark-redirect-stats ] && stats="store bolt $WORK/stats.db
		stats"
		cat <<EOF
	ark {
		naan 12345
		table $table
		foreign 404
		$stats
	}
	file_server {
		root $DATA/site
	}
EOF
		;;
	respond)
		printf '\trespond "ok" 200\n'
		;;
	file_server)
		printf '\tfile_server {\n\t\troot %s\n\t}\n' "$DATA/site"
		;;
	map-redir)
		printf '\timport %s\n\trespond 404\n' "$DATA/map-redir.caddy"
		;;
	esac
	echo "}"
}

# wrk arguments for the keys and spelling of a configuration
wrkargs() {
	case $1 in
	ark-redirect | ark-inplace | ark-compiled | respond | ark-redirect-stats) echo "keys=$DATA/keys.txt mode=vary" ;;
	ark-redirect-canon | map-redir | gomap) echo "keys=$DATA/keys.txt mode=canonical" ;;
	file_server) echo "keys=$DATA/objects.txt mode=raw" ;;
	esac
}
expected_status() {
	case $1 in
	ark-redirect | ark-redirect-canon | ark-compiled | map-redir | ark-redirect-stats | gomap) echo 302 ;;
	*) echo 200 ;;
	esac
}
describe() {
	case $1 in
	ark-redirect) echo "caddy-ark, redirect table (302), varied spellings" ;;
	ark-redirect-canon) echo "caddy-ark, redirect table (302), normal-form spellings" ;;
	ark-redirect-stats) echo "caddy-ark, redirect table (302), varied spellings, with stats (bolt store)" ;;
	ark-inplace) echo "caddy-ark, in-place table + file_server (200), varied spellings" ;;
	ark-compiled) echo "caddy-ark, the redirect table compiled (302), varied spellings" ;;
	respond) echo "Caddy respond (200), same ARK requests" ;;
	file_server) echo "Caddy file_server (200), the in-place target files" ;;
	map-redir) echo "Caddy map + redir (302), same table, normal-form spellings" ;;
	gomap) echo "bare Go net/http + Go map, the same 302 (bench/gomap), normal-form spellings" ;;
	esac
}

# cpu_snap PID: CPU ticks "server-core-busy wrk-core-busy server-core-all wrk-core-all server children"
# (busy: user, nice, system and steal, the time the hypervisor gave to someone else)
# (children: CPU of the processes this shell has waited for, i.e. wrk; `times`
# must run in this shell, not in a $(...) subshell, hence the file)
cpu_snap() {
	local srv
	srv=$(awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0)
	awk -v s="cpu$SERVER_CPU" -v c="cpu$CLIENT_CPU" -v srv="$srv" -v tck="$(getconf CLK_TCK)" '
		$1 == s { b0 = $2 + $3 + $4 + $9; a0 = $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }
		$1 == c { b1 = $2 + $3 + $4 + $9; a1 = $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }
		FILENAME != "/proc/stat" && FNR == 2 {
			# "0m1.234s 0m0.567s": user and system time of waited-for children
			ch = 0
			for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); ch += t[1] * 60 + t[2] }
		}
		END { print b0, b1, a0, a1, srv, ch * tck }' /proc/stat "$WORK/times"
}
# cpu_diff BEFORE AFTER: "server-core-other% wrk-core-other% wrk%": CPU used on
# each core by other processes (or stolen by the hypervisor), and by wrk itself
cpu_diff() {
	awk -v x="$1" -v y="$2" 'BEGIN {
		split(x, a, " "); split(y, b, " ")
		all0 = b[3] - a[3]; all1 = b[4] - a[4]
		if (all0 <= 0 || all1 <= 0) { print "? ? ?"; exit }
		wrk = b[6] - a[6]
		o0 = 100 * ((b[1] - a[1]) - (b[5] - a[5])) / all0; if (o0 < 0) o0 = 0
		o1 = 100 * ((b[2] - a[2]) - wrk) / all1; if (o1 < 0) o1 = 0
		printf "%.0f %.0f %.0f\n", o0, o1, 100 * wrk / all1 }'
}

# wait_quiet: wait up to QUIET_WAIT seconds for the whole machine to be under 10% busy
wait_quiet() {
	local end=$((SECONDS + QUIET_WAIT)) a b busy
	while [ "$SECONDS" -lt "$end" ]; do
		a=$(awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
		sleep 1
		b=$(awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
		busy=$(awk -v x="$a" -v y="$b" 'BEGIN { split(x, p, " "); split(y, q, " "); printf "%.0f", 100 * (q[1] - p[1]) / (q[2] - p[2] + 1e-9) }')
		[ "$busy" -lt 10 ] && return 0
		log "machine ${busy}% busy, waiting for it to be idle"
		sleep 4
	done
	[ "$QUIET_WAIT" -gt 0 ] && log "warning: machine still busy after ${QUIET_WAIT}s, measuring anyway"
	return 0
}

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f MiB", k / 1024 }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" "$2" | head -1; }

# run_wrk CONFIG PORT DURATION OUTFILE EXTRA...: one wrk run, bounded
run_wrk() {
	local cfg=$1 port=$2 dur=$3 out=$4
	shift 4
	# shellcheck disable=SC2046
	timeout --kill-after=5 $(($(secs "$dur") + 60)) "${PIN_CLIENT[@]}" \
		wrk -t1 -c"$CONNECTIONS" -d"$dur" --timeout 10s --latency -s "$LUA" "http://127.0.0.1:$port" \
		-- $(wrkargs "$cfg") "$@" >"$out" 2>&1 || true
	grep -q '^ARKS_RESULT' "$out"
}

port=$BASE_PORT
RESPOND_RPS=
# respond first so that its req/s is known for the ratios
ORDERED=()
want respond && ORDERED+=(respond)
for c in "${CFGS[@]}"; do [ "$c" = respond ] || ORDERED+=("$c"); done

declare -A R_RPS R_P99 R_RSS0 R_RSS1 R_START R_CHECK R_ERR R_NOISE
for cfg in "${ORDERED[@]}"; do
	port=$((port + 1))
	cf=$WORK/$cfg.Caddyfile
	slog=$WORK/$cfg.server.log
	caddyfile "$cfg" "$port" >"$cf"
	limit=$STARTUP_TIMEOUT
	[ "$cfg" = map-redir ] && limit=$MAP_STARTUP_TIMEOUT
	lifetime=$((limit + CHECK_S + RUNS * (DUR_S + 15) + 120))
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		die "port $port already in use (choose another with -p)"
	fi

	[ "$QUIET_WAIT" -gt 0 ] && wait_quiet
	log "$cfg: starting on 127.0.0.1:$port ($(describe "$cfg"))"
	t0=$(date +%s.%N)
	server=("$CADDY" run --config "$cf" --adapter caddyfile)
	[ "$cfg" = gomap ] && server=("$OUT/gomap" -table "$DATA/redirect.json" -addr "127.0.0.1:$port")
	XDG_DATA_HOME=$OUT/xdg XDG_CONFIG_HOME=$OUT/xdg \
		timeout --kill-after=10 "$lifetime" "${PIN_SERVER[@]}" \
		"${server[@]}" >"$slog" 2>&1 &
	tpid=$!
	PIDS+=("$tpid")
	# the caddy process is the child of timeout (taskset execs caddy)
	spid=
	for _ in $(seq 100); do
		spid=$(awk '{print $1}' "/proc/$tpid/task/$tpid/children" 2>/dev/null) || true
		[ -n "$spid" ] && break
		sleep 0.01
	done
	[ -n "$spid" ] && PIDS+=("$spid")

	ready=0
	deadline=$(awk -v t="$t0" -v l="$limit" 'BEGIN { printf "%.0f", t + l }')
	while [ "$(date +%s)" -lt "$deadline" ]; do
		if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/"; then
			ready=1
			break
		fi
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.02
	done
	t1=$(date +%s.%N)
	if [ "$ready" != 1 ]; then
		log "$cfg: did not answer within ${limit}s; server log tail:"
		tail -n 15 "$slog" >&2 || true
		kill -TERM "$tpid" 2>/dev/null || true
		wait "$tpid" 2>/dev/null || true
		R_CHECK[$cfg]="failed to start"
		continue
	fi
	R_START[$cfg]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f s", b - a }')
	R_RSS0[$cfg]=$(rss_kib "${spid:-$tpid}")
	log "$cfg: ready after ${R_START[$cfg]}, RSS $(mib "${R_RSS0[$cfg]}")"

	# check run: statuses of every response (also the warm-up)
	chk=$WORK/$cfg.check.txt
	if run_wrk "$cfg" "$port" "$CHECK_DURATION" "$chk" check=1; then
		want=$(expected_status "$cfg")
		R_CHECK[$cfg]=$(field statuses "$chk" | awk -v w="$want" -F, '{
			for (i = 1; i <= NF; i++) { split($i, a, ":"); n[a[1]] = a[2]; t += a[2] }
			if (t == 0) { print "no responses"; exit }
			s = sprintf("%s %.1f%%", w, 100 * n[w] / t)
			for (c in n) if (c != w) s = s sprintf(" %s:%d", c, n[c])
			print s }')
	else
		R_CHECK[$cfg]="check run failed"
	fi
	log "$cfg: check ${R_CHECK[$cfg]}"

	rpss=() p99s=() errs=0 noise=0 wrkmax=0
	for i in $(seq "$RUNS"); do
		o=$WORK/$cfg.run$i.txt
		[ "$QUIET_WAIT" -gt 0 ] && wait_quiet
		times >"$WORK/times"
		before=$(cpu_snap "${spid:-$tpid}")
		ok=1
		run_wrk "$cfg" "$port" "$DURATION" "$o" || ok=0
		times >"$WORK/times"
		read -r other0 other1 wrkcpu < <(cpu_diff "$before" "$(cpu_snap "${spid:-$tpid}")")
		if [ "$ok" != 1 ]; then
			log "$cfg: run $i failed:"
			tail -n 5 "$o" >&2
			continue
		fi
		rpss+=("$(field rps "$o")")
		p99s+=("$(field p99_ms "$o")")
		for e in err_connect err_read err_write err_status err_timeout; do
			errs=$((errs + $(field $e "$o")))
		done
		for v in other0 other1; do
			[[ ${!v} =~ ^[0-9]+$ && ${!v} -gt $noise ]] && noise=${!v}
		done
		[[ $wrkcpu =~ ^[0-9]+$ && $wrkcpu -gt $wrkmax ]] && wrkmax=$wrkcpu
		log "$cfg: run $i/$RUNS: $(field rps "$o") req/s, p99 $(field p99_ms "$o") ms;" \
			"other load: server core ${other0}%, wrk core ${other1}%; wrk ${wrkcpu}% CPU"
	done
	R_RSS1[$cfg]=$(rss_kib "${spid:-$tpid}")
	R_ERR[$cfg]=$errs
	R_NOISE[$cfg]="$noise% / $wrkmax%"
	if [ "${#rpss[@]}" -gt 0 ]; then
		R_RPS[$cfg]=$(printf '%s\n' "${rpss[@]}" | median)
		R_P99[$cfg]=$(printf '%s\n' "${p99s[@]}" | median)
	fi
	[ "$cfg" = respond ] && RESPOND_RPS=${R_RPS[$cfg]:-}

	kill -TERM "$tpid" 2>/dev/null || true
	for _ in $(seq 100); do kill -0 "$tpid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$tpid" ${spid:+"$spid"} 2>/dev/null || true
	wait "$tpid" 2>/dev/null || true
done

# ---- report
stamp=$(date -u +%Y%m%dT%H%M%SZ)
report=$OUT/results/$stamp.md
commit=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
git diff --quiet HEAD 2>/dev/null || commit="$commit+dirty"
{
	echo "caddy-ark load test, $stamp: $ENTRIES entries, $RUNS x $DURATION per config (median), wrk -t1 -c$CONNECTIONS"
	echo "server: $("$CADDY" version 2>/dev/null | awk '{print $1}') ($CADDY), commit $commit, $(go env GOVERSION)," \
		"pinned: server ${PIN_SERVER[*]:-no}, wrk ${PIN_CLIENT[*]:-no}; $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
	echo
	echo "| config | req/s (median) | ratio to respond | p99 | RSS ready | RSS after load | startup | check (expected status share) | errors | other load / wrk CPU (max) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"
	for cfg in "${ORDERED[@]}"; do
		rps=${R_RPS[$cfg]:-}
		if [ -z "$rps" ]; then
			echo "| $cfg | - | - | - | - | - | - | ${R_CHECK[$cfg]:-} | - | - |"
			continue
		fi
		ratio=-
		[ -n "$RESPOND_RPS" ] && ratio=$(awk -v a="$rps" -v b="$RESPOND_RPS" 'BEGIN { printf "%.2f", a / b }')
		printf '| %s | %.0f | %s | %.2f ms | %s | %s | %s | %s | %s | %s |\n' "$cfg" "$rps" "$ratio" "${R_P99[$cfg]}" \
			"$(mib "${R_RSS0[$cfg]}")" "$(mib "${R_RSS1[$cfg]}")" "${R_START[$cfg]}" "${R_CHECK[$cfg]}" "${R_ERR[$cfg]}" "${R_NOISE[$cfg]}"
	done
	echo
	for cfg in "${ORDERED[@]}"; do echo "- $cfg: $(describe "$cfg")"; done
	echo
	echo "Other load: the largest share of the server's or wrk's core used by other processes (or stolen by the hypervisor) during a run (above a few %, the figures are not clean: rerun on an idle machine, -w waits for one)."
	echo "wrk CPU: wrk's own use of its core (near 100%, wrk rather than the server may be the limit)."
} | tee "$report"
log "report saved to ${report#"$ROOT"/}; raw wrk output and server logs in ${WORK#"$ROOT"/}/"
