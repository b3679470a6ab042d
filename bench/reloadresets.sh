#!/bin/bash
# reloadresets.sh BINARY changed|same|plain RELOADS: 50 keep-alive
# connections (bench/reloadclient) while caddy reloads: with the table file
# changed before each reload, unchanged, or a plain Caddy site (respond).
set -e
bin=$1 kind=$2 n=${3:-10}
d=/tmp/hmem/reset-$kind-$(basename $bin); rm -rf $d; mkdir -p $d
handler="ark {
		table t.json
	}"
[ $kind = plain ] && handler='respond "ok"'
. "$(dirname "$0")/hmem.sh"
start_caddy $bin $d "$handler"
/tmp/hmem/reloadclient -c 50 -d $((n*8+6))s > $d/load.txt &
lp=$!
sleep 3
for i in $(seq 1 $n); do
  if [ $kind = changed ]; then
    f=/tmp/hmem/a.json; [ $((i % 2)) = 1 ] && f=/tmp/hmem/b.json
    cp $f $d/t.new && mv $d/t.new $d/t.json
  fi
  echo "$(date +%T.%3N) reload start" >> $d/reloads.txt
  $bin reload --config $d/Caddyfile --address localhost:23019 --force 2>>$d/reload-err.txt
  echo "$(date +%T.%3N) reload end" >> $d/reloads.txt
  sleep 4
done
wait $lp
echo "RESULT bin=$(basename $bin) kind=$kind reloads=$n $(tail -1 $d/load.txt)"
grep error $d/load.txt | head -20 || true
