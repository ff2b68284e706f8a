# A user against everyone's listings (issue 23, item 6): nobody queues a
# few thousand jobs on a small EASY partition and holds and releases them
# all in a loop, so the queue never stays the same; meanwhile root's bq,
# bq -a and bq -l of a queued job must answer at once, from the last
# complete forecast, saying how old it is when it is not fresh. (Before,
# each waited for a complete, fresh forecast, which the loop restarted
# for as long as it ran.) Latencies, the daemon's RSS and its database's
# size are printed as diagnostics; 5 s is the hang detector.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP"
NB="setpriv --reuid=nobody --regid=nogroup --clear-groups"
N=${BF_HOSTILE_LISTING_JOBS:-8000}	# nobody's queued jobs
ROUNDS=8				# root's listings of each kind during the loop
HANG_MS=5000

# ms: milliseconds since the epoch.
ms() { echo $(($(date +%s%N) / 1000000)); }
# (The files' sizes: the room the daemon holds past their ends, its disk
# reserve, is not what the jobs cost.)
db_kb() { du -sk --apparent-size "$TMP"/state.db "$TMP"/state.db-* | awk '{ s += $1 } END { print s }'; }

printf 'nodes: 4\npolicy: easy\nkill_grace: 1s\nmax_queued_per_user: 100000\nmax_stored_per_user: 1G\nmax_changes_per_user: 1000000\nmax_log_lines_per_user: 1000000\n' >p.yaml
start_daemon --config "$TMP/p.yaml"
# (The storm of holds is the attack here: the change budget, which would
# cut it to one a second, is raised so that it runs; hostile_log.sh tests
# the budget. Its lines too, which count the holds below.)
ok $? "the daemon starts (EASY, 4 nodes, max_queued_per_user 100000, no change budget to speak of)"
mkdir u && chown nobody:nogroup u
printf '#!/bin/sh\nsleep "${1:-600}"\n' >u/job.sh && chmod 755 u/job.sh
"$BSUB" -n 4 -t 1:00:00 -o /dev/null u/job.sh >/dev/null && wait_state 1 running &&
	"$BSUB" -n 1 -t 10:00 -o /dev/null u/job.sh >/dev/null &&
	"$BSUB" -n 1 -t 10:00 -o /dev/null u/job.sh >/dev/null
ok $? "root's job 1 holds the 4 nodes; root's jobs 2 and 3 queue behind it"
rss0=$(rss_kb)

# nobody's jobs, of 1 to 4 nodes and 1 to 50 minutes: four clients at once.
t0=$(ms)
(cd u && $NB sh -c '
	pids=
	for p in 1 2 3 4; do
		(i=0; while [ $i -lt $(($1 / 4)) ]; do
			"$2" -n $((1 + (i * 7 + p) % 4)) -t $((1 + (i * 13 + p * 5) % 50)):00 \
				-o /dev/null job.sh >/dev/null || exit 1
			i=$((i + 1))
		done) &
		pids="$pids $!"
	done
	rc=0; for p in $pids; do wait "$p" || rc=1; done; exit $rc' sh "$N" "$BSUB")
ok $? "nobody queues $N jobs"
echo "# $N submissions took $(($(ms) - t0)) ms; daemon RSS ${rss0} KiB -> $(rss_kb) KiB"
$NB "$BQ" --json | tr ',' '\n' | sed -n 's/.*"id":\([0-9]*\).*/\1/p' >ids
[ "$(wc -l <ids)" -eq "$N" ]
ok $? "nobody's listing shows its $N jobs"

# The hold/release loop, as nobody, until told to stop (a bounded number
# of rounds in case the stop never comes): four clients at once, each
# holding then releasing its quarter of the jobs one at a time, so that
# the queue changes every millisecond or two.
rm -f stop
split -n r/4 ids ids.
chmod 644 ids.*
for w in ids.aa ids.ab ids.ac ids.ad; do
	$NB sh -c '
		k=0
		while [ ! -e "$1" ] && [ $k -lt 1000 ]; do
			while read -r id && [ ! -e "$1" ]; do
				"$2" "$id" >/dev/null 2>&1
				"$3" "$id" >/dev/null 2>&1
			done <"$4"
			k=$((k + 1))
		done' sh "$TMP/stop" "$BF_BUILD/bstop" "$BF_BUILD/bresume" "$TMP/$w" &
	LOOP="${LOOP:-} $!"
done
sleep 2

# timed OUT CMD...: runs CMD (at most 60 s) into OUT, prints its latency in ms.
timed() {
	out=$1
	shift
	s=$(ms)
	timeout 60 "$@" >"$out" 2>&1
	echo $(($(ms) - s))
}
worst=0; hung=""; stale=0; textstale=0; untimed=""; rows=""
r=0
while [ $r -lt $ROUNDS ]; do
	a=$(timed l.txt "$BQ")
	b=$(timed la.json "$BQ" -a --json)
	c=$(timed l3.txt "$BQ" -l 3)
	d=$(timed l3.json "$BQ" -l 3 --json)
	rows="$rows $a/$b/$c/$d"
	for t in $a $b $c $d; do
		[ "$t" -gt "$worst" ] && worst=$t
		[ "$t" -gt $HANG_MS ] && hung="$hung $t"
	done
	# A forecast that is not fresh comes with its time: in the JSON of
	# every predicted job, in bq -l's start, under bq's table.
	if grep -q '"prediction_fresh":false' l3.json; then
		stale=$((stale + 1))
		at=$(sed -n 's/.*"predicted_as_of_us":\([0-9]*\).*/\1/p' l3.json)
		[ -n "$at" ] && ages="${ages:-} $(($(date +%s%N) / 1000 - at))"
		grep -q '"predicted_as_of_us":[0-9]' l3.json || untimed="$untimed -l(json)"
	fi
	# The text is another request, which may have found the forecast
	# fresh (and says nothing of its time then): counted over the rounds.
	grep -q "predicted as of " l3.txt && textstale=$((textstale + 1))
	if grep -q '"prediction_fresh":false' la.json; then
		grep '"start_kind":"predicted"' la.json | grep -vq '"predicted_as_of_us":[0-9]' &&
			untimed="$untimed -a"
	fi
	r=$((r + 1))
	sleep 0.3
done
echo "# root's latencies in ms (bq / bq -a --json / bq -l 3 / bq -l 3 --json) during the loop:$rows"
echo "# worst ${worst} ms; $stale of $ROUNDS bq -l 3 answers from a forecast not fresh, its age (us):${ages:-}"
[ -z "$hung" ]
ok $? "root's bq, bq -a and bq -l answer within $HANG_MS ms while nobody holds and releases (worst ${worst} ms${hung:+; over:$hung})"
# Most JSON answers came from a forecast not fresh: some of the text ones
# did too, and said so.
[ "$stale" -gt $((ROUNDS / 2)) ] && [ "$textstale" -eq 0 ] && untimed="$untimed -l(text)"
[ -z "$untimed" ]
ok $? "an answer from a forecast that is not fresh says when it was made (bq -l 3 as text: $textstale of $ROUNDS said so)${untimed:+ (not in:$untimed)}"
grep -q "^Start: .*predicted" l3.txt
ok $? "bq -l 3 shows job 3's predicted start ($(grep '^Start:' l3.txt))"

# Another user's submission meanwhile.
s=$(ms)
"$BSUB" -n 1 -t 10:00 -o /dev/null u/job.sh >bsub.out 2>&1
lat=$(($(ms) - s))
echo "# root's bsub during the loop: $lat ms ($(cat bsub.out))"
[ "$lat" -lt $HANG_MS ]
ok $? "root's bsub answers within $HANG_MS ms ($lat ms)"
rss=$(rss_kb)
db=$(db_kb)
echo "# daemon RSS during the loop: $rss KiB; database: $db KiB"
# What nobody's queue costs, bounded per job (max_queued_per_user and
# max_stored_per_user bound the jobs; here they are raised for the storm).
rss_under $((rss0 + N * 8)) "$rss" \
	"the daemon's memory: under 8 KiB per queued job ($rss0 KiB to $rss KiB for $N jobs)"
[ "$db" -lt $((N * 12)) ]
ok $? "the database, with the holds' job log: under 12 KiB per queued job ($db KiB for $N jobs)"

touch stop
for p in $LOOP; do wait "$p"; done
changes=$(grep -c "held by nobody" daemon.log)
echo "# nobody held (and released) jobs $changes times"
# Once the queue stays still, a fresh forecast comes, with every queued job.
i=0
while [ $i -lt 100 ]; do
	"$BQ" -a --json >la.json
	grep -q '"prediction_fresh":false' la.json || break
	sleep 0.1
	i=$((i + 1))
done
pred=$(grep -c '"start_kind":"predicted"' la.json)
! grep -q '"prediction_fresh":false' la.json && [ "$pred" -ge "$N" ]
ok $? "after the loop a fresh forecast predicts every queued job ($pred)"

# Every job at once: cancelling job 1 alone would start the next ones,
# which would outlive the daemon's stop.
"$BKILL" -u all 0 >/dev/null && wait_state 1 "$ENDED" 10 &&
	[ "$("$BQ" -a --json | grep -c '"state":"\(queued\|running\)"')" -eq 0 ]
ok $? "every job is cancelled, none left running"
stop_daemon
done_testing
