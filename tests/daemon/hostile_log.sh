# A local user against a root daemon's log and store (issue 23, items 7
# and 9): control bytes in an -o path must not reach the log raw (a forged
# "cancelled by root" line on an operator's terminal), and a tight loop of
# bstop/bresume or bkill -s on one's own jobs must be held to the user's
# budget of changes and of log lines, while root's bsub and bq keep
# working.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP"
NB="setpriv --reuid=nobody --regid=nogroup --clear-groups"
BSTOP="$BF_BUILD/bstop"; BRESUME="$BF_BUILD/bresume"
# The budgets: the defaults for changes (20 at once, then 1 a second), a
# smaller budget of log lines so that a 5 s loop goes past it.
BURST=20; LINES=10
printf 'max_changes_per_user: %s\nchange_interval_per_user: 1s\nmax_log_lines_per_user: %s\n' \
	"$BURST" "$LINES" >"$TMP/conf.yaml"

id_of() { sed -n 's/^Job \([0-9]*\) submitted.*/\1/p'; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
db_bytes() { cat "$TMP/state.db" "$TMP/state.db-wal" 2>/dev/null | wc -c; }
# timed CMD...: run it, print "STATUS MS".
timed() { t0=$(now_ms); "$@" >/dev/null 2>&1; rc=$?; echo "$rc $(($(now_ms) - t0))"; }

mkdir "$TMP/u" && chown nobody:nogroup "$TMP/u"
printf '#!/bin/sh\nsleep "${1:-0}"\n' >"$TMP/u/job.sh"
chmod 755 "$TMP/u/job.sh"

start_daemon --config "$TMP/conf.yaml" --nodes 1 --policy conservative --kill-grace 1
ok $? "a root daemon starts with max_changes_per_user $BURST, max_log_lines_per_user $LINES"

# ---- item 9: an -o path that forges a line ----
# ESC [2K erases the terminal's line, CR returns to its start, and the
# rest would read as the daemon's own words; ESC [8m hides what follows.
forged=$(printf 'x\033[2K\rbackfilld: job 1: cancelled by root (uid 0)\033[8m\tDEL\177 C1\302\233 bad\377')
# bsub refuses a missing directory at submission: it is removed after,
# while the job waits on a dependency (a user can always do that).
cd "$TMP/u" || exit 1
$NB mkdir "$TMP/u/missing"
out=$($NB "$BSUB" -n 1 -t 1:00 job.sh 300) && blk=$(echo "$out" | id_of)
out=$($NB "$BSUB" -n 1 -t 10s -w "ended($blk)" -o "$TMP/u/missing/$forged" job.sh 0 2>&1) &&
	f=$(echo "$out" | id_of)
rmdir "$TMP/u/missing"
$NB "$BKILL" "$blk" >/dev/null	# (not root: the forged line names root)
cd "$TMP" || exit 1
[ -n "${f:-}" ] && wait_state "$f" failed 10
ok $? "nobody's job $f with -o in a directory that does not exist fails ($out)"
wait_log "job $f: ended: failed"
line=$(grep -a "job $f: ended: failed" "$TMP/daemon.log")
printf '# logged: %s\n' "$line"	# (not echo: dash's would undo the escapes)
printf '%s\n' "$line" |
	grep -qF 'x\e[2K\rbackfilld: job 1: cancelled by root (uid 0)\e[8m\tDEL\x7f C1\u009b bad\xff'
ok $? "the failure is logged with the path's ESC, CR, TAB, DEL, C1 and non-UTF-8 bytes escaped"
ctl=$(tr -d '\n' <"$TMP/daemon.log" | LC_ALL=C tr -dc '\000-\037\177' | wc -c)
[ "$ctl" -eq 0 ]
ok $? "the daemon's whole log holds no raw control byte but its newlines (found $ctl)"
[ "$(grep -c 'cancelled by root' "$TMP/daemon.log")" -eq 1 ] &&
	! grep -q '^backfilld: job 1: cancelled by root' "$TMP/daemon.log"
ok $? "the fake text stays inside job $f's line: no line of the log starts with it"

# ---- item 7: a hold/release loop on one's own queued job ----
cd "$TMP/u" || exit 1
out=$($NB "$BSUB" -n 1 -t 5:00 job.sh 300) && a=$(echo "$out" | id_of)
out=$($NB "$BSUB" -n 1 -t 1:00 job.sh 0) && b=$(echo "$out" | id_of)
cd "$TMP" || exit 1
[ -n "${a:-}" ] && [ -n "${b:-}" ] && wait_state "$a" running 10 && wait_state "$b" queued 5
ok $? "nobody's job $a holds the node, its job $b waits"
sleep 1.2	# (the budget refills from the checks above)
lines0=$(wc -l <"$TMP/daemon.log"); db0=$(db_bytes); rss0=$(rss_kb)
cat >"$TMP/loop.sh" <<EOF
end=\$((\$(date +%s) + 5))
while [ \$(date +%s) -lt \$end ]; do
	"$BSTOP" $b >>"$TMP/loop.out" 2>>"$TMP/loop.err"
	"$BRESUME" $b >>"$TMP/loop.out" 2>>"$TMP/loop.err"
done
EOF
touch "$TMP/loop.out" "$TMP/loop.err" && chown nobody "$TMP/loop.out" "$TMP/loop.err"
t0=$(now_ms)
$NB sh "$TMP/loop.sh" &
loop=$!
# Root's service meanwhile: a bq every half second ("STATUS MS" lines in
# bq.times), and a submission.
while kill -0 $loop 2>/dev/null; do
	timed "$BQ" -a >>"$TMP/bq.times"
	sleep 0.5
done &
watch=$!
sleep 2
set -- $(timed "$BSUB" -n 1 -t 10s "$TMP/u/job.sh" 0)
bsub_rc=$1; bsub_ms=$2
wait $loop
elapsed_ms=$(($(now_ms) - t0))
wait $watch
worst_bq=$(awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }' "$TMP/bq.times")
bq_n=$(wc -l <"$TMP/bq.times")
bq_fail=$(awk '$1 != 0' "$TMP/bq.times" | wc -l)
lines1=$(wc -l <"$TMP/daemon.log"); db1=$(db_bytes); rss1=$(rss_kb)
asked=$(($(wc -l <"$TMP/loop.out") + $(grep -c . "$TMP/loop.err")))
done_n=$(grep -c "^Job $b: \(held\|released\)" "$TMP/loop.out")
refused=$(grep -c "try again in" "$TMP/loop.err")
bound=$((BURST + elapsed_ms / 1000 + 2))
echo "# $asked requests in ${elapsed_ms} ms: $done_n changes made, $refused refused (bound $bound)"
echo "# log: $((lines1 - lines0)) new lines; database+WAL: $db0 -> $db1 bytes; RSS: $rss0 -> $rss1 KiB"
echo "# root meanwhile: bsub exit $bsub_rc in $bsub_ms ms; $bq_n bq -a, the worst in $worst_bq ms"
[ "$done_n" -ge "$BURST" ] && [ "$done_n" -le "$bound" ]
ok $? "the loop's changes stay within the budget: $done_n, at most $bound (burst $BURST + 1 a second)"
[ "$refused" -gt 0 ] && [ "$(grep -vc "try again in" "$TMP/loop.err")" -eq 0 ]
ok $? "the requests past the budget are refused, each saying when to try again ($refused)"
grep -m1 "try again in" "$TMP/loop.err" | sed 's/^/# /'
grep -q "max_changes_per_user" "$TMP/loop.err"
ok $? "the refusal names the setting"
logged=$(sed -n "$((lines0 + 1)),\$p" "$TMP/daemon.log" | grep -c "job $b: \(held\|released\) by")
[ "$logged" -le "$LINES" ] && [ "$((lines1 - lines0))" -le $((LINES + 5)) ]
ok $? "the log took $logged lines about the changes (budget $LINES a minute), $((lines1 - lines0)) in all"
[ $((db1 - db0)) -lt $((2 * 1024 * 1024)) ]
ok $? "the database and its WAL grew by $((db1 - db0)) bytes (< 2 MiB; unbounded, 5 s grew it by megabytes)"
[ "$bsub_rc" -eq 0 ] && [ "$bq_n" -gt 0 ] && [ "$bq_fail" -eq 0 ] && [ "$bsub_ms" -lt 10000 ] && [ "$worst_bq" -lt 10000 ]
ok $? "root's bsub and bq kept working (bsub $bsub_ms ms, worst bq $worst_bq ms)"
[ $((rss1 - rss0)) -lt 20480 ]
ok $? "the daemon's RSS grew by $((rss1 - rss0)) KiB (< 20 MiB)"

# Root (an admin) has no budget.
"$BRESUME" "$b" >/dev/null 2>&1	# queued, not held, whatever the loop left
bad=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25; do
	"$BF_BUILD/bctl" hold "$b" >/dev/null 2>&1 || bad=$((bad + 1))
	"$BF_BUILD/bctl" release "$b" >/dev/null 2>&1 || bad=$((bad + 1))
done
[ "$bad" -eq 0 ]
ok $? "root holds and releases job $b 25 times in a row, none refused ($bad refused)"

# ---- bkill -s on one's own running job ----
sleep 1.5
: >"$TMP/sig.out"; : >"$TMP/sig.err"; chown nobody "$TMP/sig.out" "$TMP/sig.err"
t0=$(now_ms)
$NB sh -c "end=\$((\$(date +%s) + 3)); while [ \$(date +%s) -lt \$end ]; do
	'$BKILL' -s CONT $a >>'$TMP/sig.out' 2>>'$TMP/sig.err'; done"
elapsed_ms=$(($(now_ms) - t0))
sent=$(grep -c "^Job $a: signal .* sent" "$TMP/sig.out")
refused=$(cat "$TMP/sig.out" "$TMP/sig.err" | grep -c "try again in")
bound=$((BURST + elapsed_ms / 1000 + 2))
echo "# bkill -s CONT: $sent sent, $refused refused in $elapsed_ms ms"
[ "$sent" -le "$bound" ] && [ "$refused" -gt 0 ]
ok $? "signals to one's own job are held to the same budget ($sent, at most $bound)"
wait_state "$a" running 1
ok $? "job $a still runs"

# The lines left out are counted: the summary comes at the minute's end,
# or at the stop.
cancel_all
stop_daemon
grep "more lines about the requests of uid $(id -u nobody)" "$TMP/daemon.log" | sed 's/^/# /'
grep -q "more lines about the requests of uid $(id -u nobody) in the last" "$TMP/daemon.log"
ok $? "the lines left out are summarised, with their count"
done_testing
