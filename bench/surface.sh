#!/usr/bin/env bash
# bench/surface.sh [OLD [NEW]]: compares the public surface of two commits
# of caddy-ark (default fbeba7e against HEAD) mechanically, and exits
# non-zero on a difference it cannot attribute:
#   1. module IDs (caddy list-modules): old ⊆ new, additions listed;
#   2. commands and flags (every `caddy … --help`): every old command and
#      flag still there with the same shorthand and type, text changes shown;
#   3. Caddyfiles (OLD's examples/, README/docs caddyfile blocks, the
#      Caddyfiles in OLD's test files) adapted by both: the same JSON, or
#      the same error; the JSON config fields of caddy-ark's modules (a
#      reflection walk built inside each checkout): old ⊆ new, same types;
#   4. HTTP answers: OLD's examples/Caddyfile run by each binary (in OLD's
#      checkout, so both serve the same files with the same times), a corpus
#      (OLD's README/docs curl samples and generated requests) replayed raw;
#      old against new as is (only issue 29's additions allowed), and old
#      against new with `signposting off` and `negotiate off` (byte for byte,
#      Date masked, but for issue 29's Access-Control-Allow-Origin on ?info);
#      then the same with a bolt store, a minter and the API added to it,
#      and a corpus of API reads, refusals and writes and of resolving what
#      they wrote.
# Both commits are checked out with `git worktree add --detach` in a temp
# directory and built there; everything is removed at the end. Loopback
# only; only the Caddy processes this script starts are stopped.
# SURFACE_KEEP=<dir> keeps the recordings (answers, help texts, module and
# field lists, the Caddyfiles adapted, server logs) there for a closer look.
set -euo pipefail

OLD=${1:-fbeba7e}
NEW=${2:-HEAD}
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
SURFACE="$REPO/bench/surface"
TMP=$(mktemp -d /tmp/ark-surface.XXXXXX)
PIDS=()
FAILED=()

cleanup() {
	if [ -n "${SURFACE_KEEP:-}" ] && [ -d "$TMP" ]; then
		mkdir -p "$SURFACE_KEEP"
		cp -r "$TMP"/*.jsonl "$TMP"/*.txt "$TMP"/*.log "$TMP"/help-* "$TMP"/caddyfiles "$SURFACE_KEEP"/ 2>/dev/null || true
	fi
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	git -C "$REPO" worktree remove --force "$TMP/old" 2>/dev/null || true
	git -C "$REPO" worktree remove --force "$TMP/new" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

say() { printf '\n## %s\n' "$*"; }
# step NAME CMD...: runs a check, records NAME if it fails.
step() {
	local name=$1
	shift
	if ! "$@"; then FAILED+=("$name"); fi
}

OLDC=$(git -C "$REPO" rev-parse --short "$OLD")
NEWC=$(git -C "$REPO" rev-parse --short "$NEW")
echo "# Public surface: $OLD ($OLDC) against $NEW ($NEWC)"

for side in old new; do
	rev=$OLD
	[ $side = new ] && rev=$NEW
	git -C "$REPO" worktree add --detach "$TMP/$side" "$rev" >/dev/null 2>&1
	mkdir -p "$TMP/$side/cmd/surfacefields"
	cp "$SURFACE/fields/main.go" "$TMP/$side/cmd/surfacefields/main.go"
	(cd "$TMP/$side" && go build -o "$TMP/caddy-$side" ./cmd/caddy &&
		go build -tags surface -o "$TMP/fields-$side" ./cmd/surfacefields)
done
(cd "$REPO" && go build -o "$TMP/check" ./bench/surface/check)
CHECK=$TMP/check

say "1. Module IDs (caddy list-modules)"
for side in old new; do
	"$TMP/caddy-$side" list-modules | grep -E '^[a-z0-9_]+(\.[a-z0-9_]+)*$' >"$TMP/modules-$side.txt"
done
step modules "$CHECK" setcmp -old "$TMP/modules-old.txt" -new "$TMP/modules-new.txt" -what "module IDs" -additions "$SURFACE/additions.tsv"

say "2. Commands and flags (caddy --help, caddy ark … --help)"
for side in old new; do
	mkdir -p "$TMP/help-$side"
	"$CHECK" help -bin "$TMP/caddy-$side" -out "$TMP/help-$side"
done
step commands "$CHECK" helpcmp -old "$TMP/help-old" -new "$TMP/help-new" -additions "$SURFACE/additions.tsv"
echo "Help text changes (diff -u old new; added commands not shown):"
for f in "$TMP"/help-old/*.txt; do
	diff -u --label "old/$(basename "$f")" --label "new/$(basename "$f")" "$f" "$TMP/help-new/$(basename "$f")" || true
done

say "3a. Caddyfiles adapted by both"
mkdir -p "$TMP/caddyfiles"
"$CHECK" caddyfiles -repo "$TMP/old" -out "$TMP/caddyfiles"
step caddyfiles "$CHECK" adapt -old "$TMP/caddy-old" -new "$TMP/caddy-new" -index "$TMP/caddyfiles/index.tsv" -dir "$TMP/old"

say "3b. JSON config fields of caddy-ark's modules"
for side in old new; do
	"$TMP/fields-$side" >"$TMP/fields-$side.txt"
done
step fields "$CHECK" setcmp -old "$TMP/fields-old.txt" -new "$TMP/fields-new.txt" -what "module and field lines (path type)" -additions "$SURFACE/additions.tsv"

say "4. HTTP answers (OLD's examples/Caddyfile, and with a store and the API)"
"$CHECK" corpus -repo "$TMP/old" >"$TMP/corpus.jsonl"

# serve NAME BIN CADDYFILE CORPUS [REPLAY FLAGS]: runs BIN on CADDYFILE,
# put next to OLD's examples/Caddyfile as surface.Caddyfile (its paths are
# relative to it and to OLD's checkout; answers name the file, so every
# run uses the same name), on a free loopback port, replays CORPUS into
# $TMP/answers-NAME.jsonl, stops it and removes the store it made.
serve() {
	local name=$1 bin=$2 src=$3 corpus=$4 port pid conf
	shift 4
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	conf=$TMP/old/examples/surface.Caddyfile
	{
		printf '{\n\tadmin off\n\tpersist_config off\n}\n'
		sed "s/^:8080 {\$/:$port {\n\tbind 127.0.0.1/" "$src"
	} >"$conf"
	(cd "$TMP/old" && exec "$bin" run --adapter caddyfile --config "$conf") >"$TMP/$name.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	for _ in $(seq 1 100); do
		curl -s -o /dev/null "http://127.0.0.1:$port/" && break
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "$name: Caddy did not start:"
			tail -3 "$TMP/$name.log"
			return 1
		fi
		sleep 0.1
	done
	printf '%s: ' "$name"
	"$CHECK" replay -addr "127.0.0.1:$port" -corpus "$corpus" -out "$TMP/answers-$name.jsonl" "$@"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	PIDS=() # stopped: a later kill could hit another process given its PID
	rm -f "$TMP/old/examples/surface.db" "$conf"
}

EXAMPLE=$TMP/old/examples/Caddyfile
grep -q '^:8080 {$' "$EXAMPLE" || { echo "OLD's examples/Caddyfile has no ':8080 {' site"; exit 1; }
# off FILE: FILE with signposting and negotiation turned off at the end
# of its ark block (so that no line the answers name moves).
off() { sed '/^\tark {$/,/^\t}$/ s/^\t}$/\t\tsignposting off\n\t\tnegotiate off\n\t}/' "$1"; }
off "$EXAMPLE" >"$TMP/example-off.Caddyfile"
grep -q 'signposting off' "$TMP/example-off.Caddyfile" || { echo "no ark block to turn signposting off in"; exit 1; }

# The store configuration: the example site with a bolt store of its own
# (a new file each run), a sequential minter and the API, two keys.
"$CHECK" corpus -api >"$TMP/corpus-api.jsonl"
EDITOR_HASH=$(printf %s surface-editor-key-0123456789abcdef | sha256sum | cut -d' ' -f1)
ADMIN_HASH=$(printf %s surface-admin-key-0123456789abcdef | sha256sum | cut -d' ' -f1)
STORE_BLOCK="\t\tstore bolt surface.db\n\t\tminter ark:12345/x5 .seeddeedk\n\t\tapi /api/ark {\n\t\t\tkey editor $EDITOR_HASH write:ark:12345\n\t\t\tkey admin $ADMIN_HASH admin\n\t\t}"
sed "s|^\tark {\$|\tark {\n$STORE_BLOCK|" "$EXAMPLE" >"$TMP/store.Caddyfile"
off "$TMP/store.Caddyfile" >"$TMP/store-off.Caddyfile"

serve old "$TMP/caddy-old" "$EXAMPLE" "$TMP/corpus.jsonl"
serve old2 "$TMP/caddy-old" "$EXAMPLE" "$TMP/corpus.jsonl"
serve new "$TMP/caddy-new" "$EXAMPLE" "$TMP/corpus.jsonl"
serve new-off "$TMP/caddy-new" "$TMP/example-off.Caddyfile" "$TMP/corpus.jsonl"
serve store-old "$TMP/caddy-old" "$TMP/store.Caddyfile" "$TMP/corpus-api.jsonl" -mask-times
serve store-old2 "$TMP/caddy-old" "$TMP/store.Caddyfile" "$TMP/corpus-api.jsonl" -mask-times
serve store-new "$TMP/caddy-new" "$TMP/store.Caddyfile" "$TMP/corpus-api.jsonl" -mask-times
serve store-new-off "$TMP/caddy-new" "$TMP/store-off.Caddyfile" "$TMP/corpus-api.jsonl" -mask-times

# The old binary against itself: what a run of the same code varies in
# besides Date (nothing is expected).
step "http old/old" "$CHECK" compare -old "$TMP/answers-old.jsonl" -new "$TMP/answers-old2.jsonl" -label "old against old (stability)"
# As is: issue 29 adds signposting links, one Link line of link-values
# separated by commas (compared link by link), a media type to the old
# describedby link, Vary: Accept, Access-Control-Allow-Origin: * on ?info
# and metadata answers, and content negotiation by Accept.
step "http new" "$CHECK" compare -old "$TMP/answers-old.jsonl" -new "$TMP/answers-new.jsonl" \
	-allow Link,Vary,Access-Control-Allow-Origin -extend-links -negotiation -explained "$SURFACE/explained.tsv" -label "old against new"
# With signposting and negotiation off, only Access-Control-Allow-Origin: *
# remains, which issue 29 puts on every ?info answer whatever the switches
# (docs/metadata.md: "Any origin may read the answer").
step "http new-off" "$CHECK" compare -old "$TMP/answers-old.jsonl" -new "$TMP/answers-new-off.jsonl" \
	-allow Access-Control-Allow-Origin -explained "$SURFACE/explained.tsv" -label "old against new with signposting off, negotiate off"

echo
step "store old/old" "$CHECK" compare -old "$TMP/answers-store-old.jsonl" -new "$TMP/answers-store-old2.jsonl" -label "store and API, old against old (stability)"
step "store new" "$CHECK" compare -old "$TMP/answers-store-old.jsonl" -new "$TMP/answers-store-new.jsonl" \
	-allow Link,Vary,Access-Control-Allow-Origin -extend-links -negotiation -explained "$SURFACE/explained.tsv" -label "store and API, old against new"
step "store new-off" "$CHECK" compare -old "$TMP/answers-store-old.jsonl" -new "$TMP/answers-store-new-off.jsonl" \
	-allow Access-Control-Allow-Origin -explained "$SURFACE/explained.tsv" -label "store and API, old against new with signposting off, negotiate off"

say "Result"
if [ ${#FAILED[@]} -gt 0 ]; then
	echo "UNEXPLAINED differences in: ${FAILED[*]}"
	exit 1
fi
echo "No unexplained difference."
