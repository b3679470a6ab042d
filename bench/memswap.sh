#!/bin/bash
# memswap.sh MODE(reload|watch) CACHE(default|N) [CYCLES]: RSS of the real binary
# serving a 1M-entry table across CYCLES table changes.
set -e
mode=$1 cache=$2 n=${3:-50}
d=/tmp/hmem/run-$mode-$cache; rm -rf $d; mkdir -p $d
cachel=""; [ "$cache" != default ] && cachel="cache_size $cache"
watchl=""; [ "$mode" = watch ] && watchl="watch 1s"
. "$(dirname "$0")/hmem.sh"
start_caddy /tmp/hmem/caddy $d "ark {
		table t.json
		$cachel
		$watchl
	}"
head -2000 /tmp/hmem/keys.txt | awk '{print "url = \"http://127.0.0.1:23080/" $0 "\"\noutput = /dev/null"}' > $d/urls.cfg
traffic() { curl -s -K $d/urls.cfg; curl -s -K $d/urls.cfg; }
rss() { awk '/VmRSS/{print int($2/1024)}' /proc/$pid/status; }
traffic
ready=$(rss); peak=0; echo 5 > /proc/$pid/clear_refs
echo "ready $ready MiB"
for i in $(seq 1 $n); do
  f=/tmp/hmem/a.json; [ $((i % 2)) = 1 ] && f=/tmp/hmem/b.json
  cp $f $d/t.new && mv $d/t.new $d/t.json
  if [ $mode = reload ]; then
    /tmp/hmem/caddy reload --config $d/Caddyfile --address localhost:23019 --force 2>>$d/reload.txt
  else
    until [ "$(grep -c 'table swapped in' $d/log.json)" -ge $i ]; do sleep 0.2; done
  fi
  traffic
  hwm=$(awk '/VmHWM/{print int($2/1024)}' /proc/$pid/status); [ $hwm -gt $peak ] && peak=$hwm
  r=$(rss); echo "cycle $i rss $r MiB peak-so-far $peak MiB"
  echo 5 > /proc/$pid/clear_refs
done
echo "RESULT mode=$mode cache=$cache ready=$ready final=$(rss) peak=$peak"
