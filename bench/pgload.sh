#!/usr/bin/env bash
# bench/pgload.sh: store-bound identifiers through a real Caddy, for the
# embedded bbolt store and for PostgreSQL (a throwaway cluster on
# loopback, PostgreSQL's default settings), in one run:
#   - redirect throughput of a hot set of N bound identifiers (cached)
#     against Caddy `respond` on the same Caddy, wrk -t1 -c50, RUNS
#     alternating runs of DUR each, and the median of the per-run ratios
#     (short alternating runs: a shared machine's speed drifts from one
#     10-second run to the next more than the difference measured);
#   - the latency of uncached resolutions through HTTP: UNCACHED more
#     identifiers imported through the API, asked of a site with the same
#     store and `cache_size off`, so that every request reads the store;
#     wrk with 1 and with 16 connections for LAT_DUR each;
#   - bind latency (sequential PUTs) and mint throughput (16 clients)
#     through the API, with bench/apiload.
# Prints one line per figure; run it under `flock /tmp/ark-bench.lock`.
#
#   bench/pgload.sh       # N=1000 RUNS=15 DUR=3s UNCACHED=100000 LAT_DUR=10s
#   N=10000 RUNS=3 DUR=5s bench/pgload.sh
#
# `bench/pgload.sh copy` measures instead the local copy (local_copy) on
# PostgreSQL, issue 39's figure: COPY_N (default 10^6) identifiers
# imported into the store through the API, in a random order; the copy
# built by a Caddy of its own (time from its start to a copy serving and
# current, its peak RSS, the copy's size); then bench/compiled.sh ratio
# with SAME=1, side by side in one run: stock Caddy sending the same
# answer (302, Location, Link, Vary), the ark handler on the store with
# the copy, and (BEFORE, named "store") the same without the copy, every
# miss a query. `cache_size off` on both, so that every request is a
# miss; random identifiers of the store, random spellings; ROUNDS
# alternations (default 5) of DUR each (default 10s), after WARMUP
# (default 10s) for each server. COMPARE=table puts in the place of
# "store" a site answering the same identifiers from a JSON table of its
# own (named "table", `cache_size off`): what the copy costs beside the
# table speed the issue asks for.
#
#   flock /tmp/ark-bench.lock bench/pgload.sh copy                  # 10^6
#   COPY_N=10000 ROUNDS=1 DUR=2s WARMUP=1s bench/pgload.sh copy     # smoke test
#   ROUNDS=9 DUR=6s COMPARE=table flock /tmp/ark-bench.lock bench/pgload.sh copy
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-1000}
RUNS=${RUNS:-15}
DUR=${DUR:-3s}
UNCACHED=${UNCACHED:-100000}
LAT_DUR=${LAT_DUR:-10s}
out=bench/out/pgload
mkdir -p "$out"

freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
waitport() { for _ in $(seq "${2:-300}"); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done; return 1; }

go build -o "$out/caddy" ./cmd/caddy
go build -o "$out/apiload" ./bench/apiload

bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
pgdir=$(mktemp -d /tmp/ark-pgload-XXXXXX)
as=()
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$pgdir"
	as=(runuser -u postgres --)
fi
pgport=$(freeport)
caddy_pid=""
cleanup() {
	[ -n "$caddy_pid" ] && kill "$caddy_pid" 2>/dev/null || true
	"${as[@]}" "$bin/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$pgdir"
}
trap cleanup EXIT
(cd "$pgdir" && "${as[@]}" "$bin/initdb" -D "$pgdir/data" -U ark -A trust --no-instructions >/dev/null)
(cd "$pgdir" && "${as[@]}" "$bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
	-o "-p $pgport -k $pgdir -c listen_addresses=127.0.0.1" start >/dev/null)
dsn="postgres://ark@127.0.0.1:$pgport/postgres?sslmode=disable"

export ARK_API_KEY=bench-key
hash=$(printf %s "$ARK_API_KEY" | sha256sum | cut -d' ' -f1)
pin_server=() pin_wrk=()
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	pin_server=(taskset -c 0) pin_wrk=(taskset -c 1)
fi

if [ "${1:-}" = copy ]; then
	COPY_N=${COPY_N:-1000000}
	copydir=$out/copy
	rm -rf "$copydir"
	p2=$(freeport) p3=$(freeport)
	echo '{"entries": [{"id": "ark:12345/t1", "target": "https://table.example.org/t1"}]}' >"$out/copy-table.json"
	# The import, through the API, into the store alone.
	cat >"$out/copy-import.Caddyfile" <<EOF
{
	admin off
	persist_config off
	log {
		output discard
	}
}
:$p2 {
	bind 127.0.0.1
	ark {
		naan 12345
		store postgres $dsn
		api /api/ark {
			key bench $hash write:ark:12345
			max_body 4294967296
		}
	}
	respond 404
}
EOF
	XDG_DATA_HOME="$out/data" "$out/caddy" run --config "$out/copy-import.Caddyfile" --adapter caddyfile >"$out/copy-import.log" 2>&1 &
	caddy_pid=$!
	waitport "$p2"
	"$out/apiload" -api "http://127.0.0.1:$p2/api/ark" -mode import -n "$COPY_N" -keys "$out/copy-keys.txt" -order random | sed "s/^/copy /"
	kill "$caddy_pid"
	wait "$caddy_pid" 2>/dev/null || true
	caddy_pid=""
	# The copy, built by a Caddy of its own from the store, then opened
	# from disk by the measured server.
	cat >"$out/copy-build.Caddyfile" <<EOF
{
	admin off
	persist_config off
}
:$p3 {
	bind 127.0.0.1
	ark {
		naan 12345
		store postgres $dsn
		local_copy $copydir
		ready /healthz/ark
	}
	respond 404
}
EOF
	start=$(date +%s.%N)
	XDG_DATA_HOME="$out/data" "$out/caddy" run --config "$out/copy-build.Caddyfile" --adapter caddyfile >"$out/copy-build.log" 2>&1 &
	caddy_pid=$!
	# Up to 5 minutes: Caddy may start the HTTP app after its configuration
	# has opened the store and checked its table against it (by the
	# table's keys since session 15; by reading the whole store before,
	# 45 s at 10^7).
	waitport "$p3" 3000 || { echo "copy: the copy's Caddy did not answer within 5 minutes; its log:"; cat "$out/copy-build.log"; exit 1; }
	until curl -s "http://127.0.0.1:$p3/healthz/ark" | grep -q '"state":"serving".*"behind_changes":0'; do
		kill -0 "$caddy_pid" || { cat "$out/copy-build.log"; exit 1; }
		sleep 0.1
	done
	echo "copy n=$COPY_N build_to_serving_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')" \
		"peak_rss_mib=$(awk '$1 == "VmHWM:" { printf "%.0f", $2 / 1024 }' "/proc/$caddy_pid/status")" \
		"size_mb=$(du -sm "$copydir" | cut -f1)"
	kill "$caddy_pid"
	wait "$caddy_pid" 2>/dev/null || true
	caddy_pid=""
	before=(BEFORE_NAME=store "BEFORE_OPTIONS=store postgres $dsn
		cache_size off")
	if [ "${COMPARE:-store}" = table ]; then
		awk '{ sub(/^ark:12345\/u/, ""); printf "%s{\"id\":\"ark:12345/u%s\",\"target\":\"https://repo.example.org/u/%s\"}\n", NR == 1 ? "{\"entries\": [" : ",", $0, $0 } END { print "]}" }' \
			"$out/copy-keys.txt" >"$out/copy-as-table.json"
		before=(BEFORE_NAME=table "BEFORE_TABLE=$PWD/$out/copy-as-table.json" "BEFORE_OPTIONS=cache_size off")
	fi
	env SAME=1 WARMUP="${WARMUP:-10s}" \
		TABLE_OPTIONS="store postgres $dsn
		local_copy $copydir
		cache_size off" \
		BEFORE="$out/caddy" "${before[@]}" \
		bench/compiled.sh ratio "$out/caddy" "$out/copy-table.json" "$out/copy-keys.txt" "${ROUNDS:-5}" "${DUR:-10s}" |
		sed -e 's/^/copy /' -e 's/compiled/local_copy/g'
	exit 0
fi

echo "uptime before: $(uptime)"
for store in bolt postgres; do
	case $store in
	bolt) line="store bolt $out/store.db"; rm -f "$out/store.db" ;;
	postgres) line="store postgres $dsn" ;;
	esac
	p1=$(freeport) p2=$(freeport) p3=$(freeport)
	cat >"$out/$store.Caddyfile" <<EOF
{
	admin off
	persist_config off
	log {
		output discard
	}
}
:$p1 {
	bind 127.0.0.1
	respond "ok" 200
}
:$p2 {
	bind 127.0.0.1
	ark {
		naan 12345
		$line
		minter ark:12345/m1 .zdddd
		api /api/ark {
			key bench $hash write:ark:12345
		}
	}
	respond 404
}
:$p3 {
	bind 127.0.0.1
	ark {
		naan 12345
		$line
		cache_size off
	}
	respond 404
}
EOF
	XDG_DATA_HOME="$out/data" "${pin_server[@]}" "$out/caddy" run --config "$out/$store.Caddyfile" --adapter caddyfile >"$out/$store.log" 2>&1 &
	caddy_pid=$!
	waitport "$p2"
	api="http://127.0.0.1:$p2/api/ark"
	"$out/apiload" -api "$api" -mode fill -n "$N" -keys "$out/keys.txt" | sed "s/^/$store /"
	"$out/apiload" -api "$api" -mode import -n "$UNCACHED" -keys "$out/uncached.txt" | sed "s/^/$store /"
	"$out/apiload" -api "$api" -mode bind -n 500 | sed "s/^/$store /"
	"$out/apiload" -api "$api" -mode mint -n 2000 -c 16 -shoulder ark:12345/m1 | sed "s/^/$store /"
	ratios=()
	for r in $(seq "$RUNS"); do
		for target in "ark $p2" "respond $p1"; do
			set -- $target
			rps=$("${pin_wrk[@]}" timeout 120 wrk -t1 -c50 -d"$DUR" -s bench/wrk/arks.lua "http://127.0.0.1:$2" -- keys="$out/keys.txt" mode=canonical |
				awk '/Requests\/sec/ {print $2}')
			echo "$store run=$r $1 req_per_s=$rps"
			eval "rps_$1=$rps"
		done
		ratios+=("$(awk -v a="$rps_ark" -v b="$rps_respond" 'BEGIN {printf "%.3f", a / b}')")
	done
	echo "$store hot-set ratios=$(IFS=,; echo "${ratios[*]}") median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')"
	for c in 1 16; do
		"${pin_wrk[@]}" timeout 120 wrk -t1 -c"$c" -d"$LAT_DUR" -s bench/wrk/arks.lua "http://127.0.0.1:$p3" -- keys="$out/uncached.txt" mode=canonical check=1 |
			awk -v s="$store" -v c="$c" '/^ARKS_RESULT/ {sub(/^ARKS_RESULT /, ""); print s " uncached connections=" c " " $0}'
	done
	kill "$caddy_pid"
	wait "$caddy_pid" 2>/dev/null || true
	caddy_pid=""
done
echo "uptime after: $(uptime)"
