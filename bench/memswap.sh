#!/bin/bash
# memswap.sh MODE(reload|watch) CACHE(default|N) [CYCLES]: RSS of the real binary
# serving a 1M-entry table across CYCLES table changes.
set -e
mode=$1 cache=$2 n=${3:-50}
d=/tmp/hmem/run-$mode-$cache; rm -rf $d; mkdir -p $d
cp /tmp/hmem/a.json $d/t.json
cachel=""; [ "$cache" != default ] && cachel="cache_size $cache"
watchl=""; [ "$mode" = watch ] && watchl="watch 1s"
cat > $d/Caddyfile <<EOF
{
	admin localhost:23019
	persist_config off
	log {
		output file $d/log.json
		format json
	}
}
:23080 {
	bind 127.0.0.1
	ark {
		table t.json
		$cachel
		$watchl
	}
}
EOF
head -2000 /tmp/hmem/keys.txt | awk '{print "url = \"http://127.0.0.1:23080/" $0 "\"\noutput = /dev/null"}' > $d/urls.cfg
/tmp/hmem/caddy run --config $d/Caddyfile > $d/out.txt 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
until curl -s -o /dev/null http://127.0.0.1:23080/ark:12345/x; do sleep 0.2; done
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
echo "RESULT mode=$mode cache=$cache ready=$ready after1=$(sed -n 's/^cycle 1 rss \([0-9]*\).*/\1/p' $d/cycles 2>/dev/null) final=$(rss) peak=$peak"
