#!/bin/sh
# Job arrays in the live daemon: a 10,000-element array submitted (one
# request, one commit: bsub's wall time until its acknowledgement), then
# bq of the array (its one line), bq -l ID, and bq -A (every element), each
# the median of 9; under conservative with 64 nodes busy (every element is
# placed: a guarantee each), plain and with a cap (%100). Prints figures
# only (targets: submission under 0.2 s, bq of the array under 20 ms).
# Usage: sh bench/arrays.sh BUILD-DIR
set -u
bdir=$1
tmp=$(mktemp -d)
dpid=
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export BACKFILLD_SOCKET="$tmp/s.sock"
now_ms() { date +%s%3N; }
# median_ms CMD...: the median wall time of 9 runs, in ms (output dropped).
median_ms() {
	for i in 1 2 3 4 5 6 7 8 9; do
		a=$(date +%s%N); "$@" >/dev/null 2>&1; b=$(date +%s%N)
		echo $(((b - a) / 1000))
	done | sort -n | sed -n 5p | awk '{ printf "%.1f", $1 / 1000 }'
}
start() {
	"$bdir/backfilld" --foreground --socket "$tmp/s.sock" --db "$tmp/db.$1" \
		--spool "$tmp/spool.$1" --nodes 64 --policy conservative >>"$tmp/d.log" 2>&1 &
	dpid=$!
	i=0
	while ! "$bdir/bq" >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
stop() { kill "$dpid"; wait "$dpid" 2>/dev/null; dpid=; }
printf '#!/bin/sh\nsleep 600\n' >"$tmp/job.sh"
chmod 755 "$tmp/job.sh"

printf '%-34s %10s %10s %10s %10s\n' "array of 10,000 elements" "submit ms" "bq ms" "bq -l ms" "bq -A ms"
for spec in "sweep[1-10000]" "sweep[1-10000]%100"; do
	start "$(echo "$spec" | tr -c 'a-z0-9\n' _)"
	# 64 nodes busy for a day: every element is placed behind them.
	"$bdir/bsub" -n 64 -t 24:00 -o /dev/null "$tmp/job.sh" >/dev/null
	a=$(date +%s%N)
	out=$("$bdir/bsub" -n 1 -t 1:00 -J "$spec" -o /dev/null "$tmp/job.sh")
	b=$(date +%s%N)
	id=$(echo "$out" | sed -n 's/^Job \([0-9]*\) .*/\1/p')
	sub=$(((b - a) / 1000))
	printf '%-34s %10s %10s %10s %10s\n' "$spec" "$(awk -v u="$sub" 'BEGIN { printf "%.1f", u / 1000 }')" \
		"$(median_ms "$bdir/bq")" "$(median_ms "$bdir/bq" -l "$id")" \
		"$(median_ms "$bdir/bq" -A)"
	echo "$out" | grep -q "an array of 10000 elements" ||
		echo "  (the submission was not taken: $out)"
	stop
done
