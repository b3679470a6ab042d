#!/usr/bin/env bash
# bench/oai.sh: a full OAI-PMH harvest of N identifiers of the store, for
# the embedded bbolt store and for PostgreSQL (a throwaway cluster on
# loopback), in one run: pages per second and Caddy's memory over the
# harvest.
#
# For each store: a fresh Caddy with a fresh store, filled with N
# redirects by one POST import (bench/apiload -mode import); then a
# harvester follows ListRecords (oai_dc) from the first page to the last,
# one page at a time as harvesters do, while Caddy's VmRSS is sampled
# every 0.5 s. Printed: records, pages, seconds, pages and records per
# second, the first page's time and the slowest other page's, and RSS
# before, at its peak during, and after.
#
#   flock /tmp/ark-bench.lock bench/oai.sh               # N=1000000, both stores
#   N=100000 STORES=bolt bench/oai.sh
#   PAGE=500 bench/oai.sh                                # page_size
#   PAGES=3 bench/oai.sh                                 # the first pages only
# Every process is started here, bounded by timeout, and stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-1000000}
STORES=${STORES:-bolt postgres}
PAGE=${PAGE:-100}
PAGES=${PAGES:-0} # stop after this many pages; 0: the whole list
DATA=${DATA:-/work/bench-data/oai}
CADDY=${CADDY:-}
. bench/apistore.sh

rss() { mib "$(awk '/^VmRSS:/ {print $2}' "/proc/$caddy_pid/status")"; }

# The harvester: follows ListRecords' resumption tokens to the end, one
# page at a time, keeping nothing of the pages.
cat >"$DATA/harvest.py" <<'PY'
import re, sys, time, urllib.parse, urllib.request
base = sys.argv[1]
limit = int(sys.argv[2])
token = re.compile(rb'<resumptionToken[^>]*>([^<]+)</resumptionToken>')
query = "verb=ListRecords&metadataPrefix=oai_dc"
records = pages = 0
slowest = first = 0.0
start = time.monotonic()
while True:
    t = time.monotonic()
    with urllib.request.urlopen(base + "?" + query, timeout=600) as r:
        body = r.read()
    took = time.monotonic() - t
    if pages == 0:
        first = took
    else:
        slowest = max(slowest, took)
    pages += 1
    records += body.count(b"<record>")
    m = token.search(body)
    if not m or pages == limit:
        break
    query = "verb=ListRecords&resumptionToken=" + urllib.parse.quote(m.group(1).decode())
secs = time.monotonic() - start
print("records=%d pages=%d seconds=%.1f pages_per_s=%.1f records_per_s=%.0f first_page_s=%.2f slowest_later_page_s=%.3f"
      % (records, pages, secs, pages / secs, records / secs, first, slowest))
PY

echo "bench/oai.sh N=$N PAGE=$PAGE PAGES=$PAGES, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), caddy $CADDY; uptime before: $(uptime | sed 's/.*load average/load average/')"
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
	port=$(freeport)
	cat >"$DATA/$store.Caddyfile" <<CADDYFILE
{
	admin off
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
		oai /oai {
			admin_email bench@example.org
			page_size $PAGE
		}
	}
	respond 404
}
CADDYFILE
	XDG_DATA_HOME="$DATA/xdg" XDG_CONFIG_HOME="$DATA/xdg" timeout --kill-after=10 7200 "${pin_server[@]}" \
		"$CADDY" run --config "$DATA/$store.Caddyfile" --adapter caddyfile >"$DATA/$store.log" 2>&1 &
	timeout_pid=$!
	waitport "$port"
	caddy_pid=$(pgrep -P "$timeout_pid")
	timeout 3600 "${pin_client[@]}" "$DATA/apiload" -api "http://127.0.0.1:$port/api/ark" -mode import -n "$N" -keys "$DATA/keys.txt" | sed "s/^/$store /"
	sleep 2 # the import's second is over: the list holds it
	echo "$store before the harvest: vmrss_mib=$(rss)"
	(while sleep 0.5; do awk '/^VmRSS:/ {print $2}' "/proc/$caddy_pid/status" 2>/dev/null || exit 0; done) >"$DATA/$store-rss.txt" &
	sampler_pid=$!
	timeout 7200 "${pin_client[@]}" python3 "$DATA/harvest.py" "http://127.0.0.1:$port/oai" "$PAGES" | sed "s/^/$store harvest: /"
	kill "$sampler_pid"
	wait "$sampler_pid" 2>/dev/null || true
	sampler_pid=""
	awk -v s="$store" '{if ($1 > p) p = $1; n++} END {printf "%s during the harvest: peak vmrss_mib=%.0f (%d samples)\n", s, p / 1024, n}' "$DATA/$store-rss.txt"
	echo "$store after the harvest: vmrss_mib=$(rss)"
	kill "$caddy_pid"
	wait "$timeout_pid" 2>/dev/null || true
	caddy_pid=""
	if [ -n "$pgdir" ]; then
		pg_stop
	fi
done
echo "uptime after: $(uptime | sed 's/.*load average/load average/')"
