#!/usr/bin/env bash
# bench/ids.sh: GET <api>/ids, retarget and the feed at N identifiers,
# through a real Caddy, for the embedded bbolt store and for PostgreSQL (a
# throwaway cluster on loopback, PostgreSQL's default settings, pg_trgm
# created by the store's migration), in one run:
#   - N bindings imported through POST <api>/import (ten shoulders
#     ark:12345/x0..x9, twenty hosts repo00..repo19.example.org, a third
#     with metadata, 1% withdrawn) and MINTED names minted and not bound;
#   - the time of the first page (limit=100) of GET ids for each query
#     below, the median and the slowest of REPS requests, each on a new
#     connection (curl's time_total);
#   - for PostgreSQL, the q queries again without the trigram index;
#   - a retarget of one host's identifiers (about N/20): dry run, apply
#     and undo, each timed once.
# Prints one line per figure; run it under `flock /tmp/ark-bench.lock`.
# The data (table, store file, cluster) are under DATA.
#
#   bench/ids.sh                  # N=1000000 MINTED=20000 REPS=9
#   N=100000 REPS=3 bench/ids.sh
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-1000000}
MINTED=${MINTED:-20000}
REPS=${REPS:-9}
DATA=${DATA:-/work/bench-data/ids}
out=bench/out/ids
mkdir -p "$out" "$DATA"

freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
waitport() { for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done; return 1; }

go build -o "$out/caddy" ./cmd/caddy

table="$DATA/table-$N.json"
if [ ! -s "$table" ]; then
	python3 - "$N" "$table" <<'EOF'
import random, sys, json
n, path = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(23)
names = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Emmy Noether", "Hedy Lamarr", "Katherine Johnson"]
with open(path, "w") as f:
    f.write('{"entries": [\n')
    for i in range(n):
        e = {"id": "ark:12345/x%d%07d" % (i % 10, i), "target": "https://repo%02d.example.org/items/%d" % (i % 20, i)}
        if i % 3 == 0:
            e["meta"] = {"title": "Item %d of collection %d" % (i, i % 97), "creator": rnd.choice(names)}
        if i % 100 == 7:
            e["status"] = 410
            e.setdefault("meta", {})["reason"] = "withdrawn in the benchmark"
        f.write(("" if i == 0 else ",\n") + json.dumps(e))
    f.write("\n]}\n")
EOF
fi

bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
pgdir="$DATA/pg"
rm -rf "$pgdir" "$DATA/store.db"
mkdir -p "$pgdir"
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
}
trap cleanup EXIT
(cd "$pgdir" && "${as[@]}" "$bin/initdb" -D "$pgdir/data" -U ark -A trust --no-instructions >/dev/null)
(cd "$pgdir" && "${as[@]}" "$bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
	-o "-p $pgport -k $pgdir -c listen_addresses=127.0.0.1" start >/dev/null)
dsn="postgres://ark@127.0.0.1:$pgport/postgres?sslmode=disable"
psql() { "$bin/psql" -X -q -A -t "$dsn" "$@"; }

export ARK_API_KEY=bench-key
hash=$(printf %s "$ARK_API_KEY" | sha256sum | cut -d' ' -f1)

# first times the first page of GET ids?$2 (a label in $1), REPS times.
first() {
	local label=$1 query=$2 times=() lines
	for _ in $(seq "$REPS"); do
		times+=("$(curl -s -o "$out/page" -w '%{time_total}' -H "Authorization: Bearer $ARK_API_KEY" "$api/ids?$query")")
	done
	lines=$(wc -l <"$out/page")
	printf '%s\n' "${times[@]}" | sort -n | awk -v s="$store" -v l="$label" -v q="$query" -v n="$lines" \
		'{t[NR] = $1} END {printf "%s ids %-24s %-58s lines=%-4d median_ms=%.1f max_ms=%.1f\n", s, l, q, n, 1000 * t[int((NR + 1) / 2)], 1000 * t[NR]}'
}

# timed runs a request once and prints its time and answer.
timed() {
	local label=$1
	shift
	local start end
	start=$(date +%s.%N)
	body=$(curl -s -H "Authorization: Bearer $ARK_API_KEY" "$@")
	end=$(date +%s.%N)
	printf '%s %-16s %6.2f s  %s\n' "$store" "$label" "$(echo "$end - $start" | bc)" "$(echo "$body" | tr -d ' \n' | cut -c1-120)"
}

echo "uptime before: $(uptime)"
for store in bolt postgres; do
	case $store in
	bolt) line="store bolt $DATA/store.db" ;;
	postgres) line="store postgres $dsn" ;;
	esac
	port=$(freeport) port2=$(freeport)
	plain=""
	if [ "$store" = postgres ]; then
		# The same store in a schema whose trigram index is dropped
		# before the import: what the index costs an import.
		plain=":$port2 {
	bind 127.0.0.1
	ark {
		naan 12345
		store postgres $dsn {
			schema plain
		}
		api /api/ark {
			key bench $hash write:ark:12345
			max_body 1073741824
		}
	}
}"
	fi
	cat >"$out/$store.Caddyfile" <<EOF
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
		$line
		minter ark:12345/m1 .zdddddd
		api /api/ark {
			key bench $hash write:ark:12345
			max_body 1073741824
		}
	}
	respond 404
}
$plain
EOF
	XDG_DATA_HOME="$out/data" "$out/caddy" run --config "$out/$store.Caddyfile" --adapter caddyfile >"$out/$store.log" 2>&1 &
	caddy_pid=$!
	waitport "$port"
	api="http://127.0.0.1:$port/api/ark"
	if [ "$store" = postgres ]; then
		psql -c "DROP INDEX plain.bindings_text" >/dev/null
		start=$(date +%s.%N)
		curl -s -f -o /dev/null -H "Authorization: Bearer $ARK_API_KEY" --data-binary @"$table" "http://127.0.0.1:$port2/api/ark/import"
		end=$(date +%s.%N)
		printf '%s import of %d bindings without the trigram index: %.0f s\n' "$store" "$N" "$(echo "$end - $start" | bc)"
		psql -c "SET client_min_messages = warning; DROP SCHEMA plain CASCADE" >/dev/null
	fi
	start=$(date +%s.%N)
	curl -s -f -o /dev/null -H "Authorization: Bearer $ARK_API_KEY" --data-binary @"$table" "$api/import"
	for _ in $(seq $((MINTED / 1000))); do
		curl -s -f -o /dev/null -X POST -H "Authorization: Bearer $ARK_API_KEY" "$api/mint/ark:12345/m1?n=1000"
	done
	# bbolt writes an import's history as it merges it, in the background:
	# wait for the last record.
	total=$((N + MINTED))
	until [ -n "$(curl -s -H "Authorization: Bearer $ARK_API_KEY" "$api/changes?since=$((total - 1))&limit=1")" ]; do sleep 1; done
	end=$(date +%s.%N)
	printf '%s import of %d bindings, %d names minted, history written: %.0f s\n' "$store" "$N" "$MINTED" "$(echo "$end - $start" | bc)"
	if [ "$store" = postgres ]; then
		psql -c "VACUUM ANALYZE" >/dev/null
		echo "postgres indexes: $(psql -c "SELECT string_agg(indexname, ' ') FROM pg_indexes WHERE schemaname = 'ark' AND tablename = 'bindings'")"
	fi
	queries=(
		"all|limit=100"
		"prefix|prefix=ark:12345/x5&limit=100"
		"prefix,deep|prefix=ark:12345/x5&after=ark:12345/x50500005&limit=100"
		"status=withdrawn|status=withdrawn&limit=100"
		"status=minted|status=minted&limit=100"
		"status=bound|status=bound&limit=100"
		"prefix,withdrawn|prefix=ark:12345/x7&status=withdrawn&limit=100"
		"q,5%,one shoulder|q=repo03.example.org&limit=100"
		"q,1%,spread|q=items/77&limit=100"
		"q,meta,17%|q=lovelace&limit=100"
		"q,one|q=Item+777777+of&limit=100"
		"q,none|q=nowhere-at-all&limit=100"
		"q,prefix,withdrawn|q=repo07&prefix=ark:12345/x7&status=withdrawn&limit=100"
	)
	for qq in "${queries[@]}"; do
		first "${qq%%|*}" "${qq#*|}"
	done
	if [ "$store" = postgres ]; then
		psql -c "DROP INDEX ark.bindings_text" >/dev/null
		for qq in "${queries[@]}"; do
			case ${qq%%|*} in q*) first "${qq%%|*},no-trgm" "${qq#*|}" ;; esac
		done
	fi
	req='{"from": "https://repo11.example.org/items/", "to": "https://archive.example.org/repo11/"'
	timed "retarget dry" -X POST "$api/retarget" -d "$req, \"dry_run\": true}"
	token=$(echo "$body" | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
	timed "retarget apply" -X POST "$api/retarget" -d "$req, \"token\": \"$token\"}"
	batch=$(echo "$body" | python3 -c 'import json, sys; print(json.load(sys.stdin)["batch"])')
	timed "undo" -X POST "$api/batches/$batch/undo"
	timed "changes" "$api/changes?since=$((total))&limit=1000" -o /dev/null
	kill "$caddy_pid"
	wait "$caddy_pid" 2>/dev/null || true
	caddy_pid=""
done
echo "uptime after: $(uptime)"
