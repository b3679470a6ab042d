#!/usr/bin/env bash
# bench/ezid-download.sh: EZID's batch download at scale, through a real
# Caddy on a bbolt store: N identifiers generated as an EZID ANVL download
# (bench/genezid, gzip), imported through the API (POST
# import?format=anvl), then downloaded through EZID's API
# (/download_request, format=anvl, gzip, the file polled until it is
# ready), and the download compared byte for byte with what was imported.
# Prints the import's time and Caddy's peak RSS during it, the download's
# time (request to file ready) and Caddy's peak RSS during it (VmHWM; Caddy
# is restarted on the store between the two, so that the download's peak
# is its own), and the sizes.
#
#   flock /tmp/ark-bench.lock bench/ezid-download.sh        # N=1000000
#   N=100000 bench/ezid-download.sh
#   CADDY=/path/to/caddy bench/ezid-download.sh             # a caddy built elsewhere
# Every process is started here, bounded by timeout, and stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-1000000}
DATA=${DATA:-/work/bench-data/ezid-download}
CADDY=${CADDY:-}
. bench/apistore.sh

rm -rf "$DATA/store.db" "$DATA/xdg" "$DATA/got.txt.gz"
echo "bench/ezid-download.sh N=$N, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD); uptime before: $(uptime | sed 's/.*load average/load average/')"
t0=$(date +%s.%N)
timeout 600 go run ./bench/genezid -n "$N" | gzip -1 > "$DATA/download.txt.gz"
echo "generated: $(du -m "$DATA/download.txt.gz" | cut -f1) MiB gzip, $(python3 -c "print('%.1f' % ($(date +%s.%N) - $t0))") s"

port=$(freeport)
pwhash=$("$CADDY" hash-password --plaintext alice-pw)
cat > "$DATA/Caddyfile" <<CADDYFILE
{
	admin off
}
http://127.0.0.1:$port {
	@credentials header Authorization "Basic *"
	route {
		basic_auth @credentials bcrypt EZID {
			alice $pwhash
		}
		ark {
			naan 12345
			store bolt $DATA/store.db
			api /api/ark {
				key bench $hash admin write:*
				max_body 4294967296
				people basic_auth
				person alice write:ark:12345
				ezid
			}
		}
	}
}
CADDYFILE
# start_caddy: Caddy on the store, its PID in pid (timeout's in caddy_pid).
start_caddy() {
	XDG_DATA_HOME=$DATA/xdg XDG_CONFIG_HOME=$DATA/xdg timeout 3600 "${pin_server[@]}" "$CADDY" run --config "$DATA/Caddyfile" --adapter caddyfile >> "$DATA/caddy.log" 2>&1 &
	caddy_pid=$!
	waitport "$port"
	pid=$(pgrep -P "$caddy_pid" | head -1) # caddy, the child of timeout
	echo "caddy ready: VmRSS $(mib "$(rss VmRSS)") MiB ($(mib "$(rss RssAnon)") anonymous, $(mib "$(rss RssFile)") file pages)"
}
rss() { awk "/^$1:/ {print \$2}" "/proc/$pid/status"; }
# cpu: Caddy's CPU time so far, in seconds (user + system).
cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$pid/stat"; }
: > "$DATA/caddy.log"
start_caddy

t0=$(date +%s.%N) c0=$(cpu)
answer=$(timeout 3600 curl -sS -X POST -H "Authorization: Bearer $ARK_API_KEY" --data-binary @"$DATA/download.txt.gz" "http://127.0.0.1:$port/api/ark/import?format=anvl")
t1=$(date +%s.%N)
echo "import: $(python3 -c "print('%.1f' % ($t1 - $t0))") s ($(python3 -c "print('%.1f' % ($(cpu) - $c0))") s of Caddy's CPU), peak VmRSS $(mib "$(rss VmHWM)") MiB, after $(mib "$(rss VmRSS)") MiB: $(echo "$answer" | tr -d ' \n')"
kill "$caddy_pid"
wait "$caddy_pid" || true
start_caddy

t0=$(date +%s.%N) c0=$(cpu)
line=$(timeout 60 curl -sS -u alice:alice-pw -d format=anvl "http://127.0.0.1:$port/download_request")
t_answer=$(date +%s.%N)
url=${line#success: }
[ "$url" != "$line" ] || { echo "download_request: $line"; exit 1; }
anon_peak=0
for _ in $(seq 36000); do
	anon=$(rss RssAnon)
	[ "$anon" -gt "$anon_peak" ] && anon_peak=$anon
	code=$(curl -s -o "$DATA/got.txt.gz" -w '%{http_code}' "$url")
	[ "$code" = 200 ] && break
	sleep 0.1
done
t1=$(date +%s.%N)
took=$(grep -o '"batch download ready".*"took":[0-9.]*' "$DATA/caddy.log" | grep -o '"took":[0-9.]*' | cut -d: -f2)
echo "download: answered in $(python3 -c "print('%.1f' % ($t_answer - $t0))") s (basic_auth's bcrypt), written in $(python3 -c "print('%.1f' % $took)") s (Caddy's log), ready to the poller $(python3 -c "print('%.1f' % ($t1 - $t0))") s after the request ($(python3 -c "print('%.1f' % ($(cpu) - $c0))") s of Caddy's CPU); peak VmRSS $(mib "$(rss VmHWM)") MiB (of which anonymous memory, sampled every 0.1 s: $(mib "$anon_peak") MiB; the rest is the store's mmap and the binary); $(du -m "$DATA/got.txt.gz" | cut -f1) MiB gzip"
if cmp -s <(gzip -dc "$DATA/download.txt.gz") <(gzip -dc "$DATA/got.txt.gz"); then
	echo "round trip: the download is the imported file, byte for byte ($(gzip -dc "$DATA/got.txt.gz" | grep -c '^:: ') records)"
else
	echo "round trip: the download differs from the imported file:"
	cmp <(gzip -dc "$DATA/download.txt.gz") <(gzip -dc "$DATA/got.txt.gz") | head -3 || true
	exit 1
fi
