#!/bin/sh
# bq -d and bq --swf (bq(1), HISTORY): ended jobs from the store, filtered
# by time and user, the details the owner's only; and a live run's export
# replays through backfilld --replay to the same schedule.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
chmod 755 "$TMP"

start_daemon --nodes 4 --policy conservative --kill-grace 1 || exit 1

# A schedule with a wait, a compression and a backfill, all decided by the
# jobs' ends: 1 (2 nodes, 3 s), 2 (4 nodes: after 1), 3 (2 nodes, 1 s:
# beside 1, done before 2's guarantee), 4 cancelled while queued.
"$BSUB" -n 2 -t 1:00 -o /dev/null sleep 3 >/dev/null
"$BSUB" -n 4 -t 1:00 -o /dev/null sleep 2 >/dev/null
"$BSUB" -n 2 -t 0:30 -o /dev/null sleep 1 >/dev/null
"$BSUB" -n 4 -t 1:00 -o /dev/null true >/dev/null
"$BKILL" 4 >/dev/null
wait_state 2 done 30
ok $? "the jobs ran"

"$BQ" -d >out
[ "$(sed -n 's/^ *\([0-9][0-9]*\) .*/\1/p' out | tr '\n' ' ')" = "4 3 1 2 " ]
ok $? "bq -d: the ended jobs in the order they ended"
grep -q "^ *2 .* done  *0  *4 " out && grep -q "^ *4 .* cancelled " out
ok $? "with state, exit status and nodes"
"$BQ" -d --since 2099-01-01 | grep -q "^No ended jobs in that time"
ok $? "--since in the future: none, said so"
[ "$("$BQ" -d --until 1h | grep -c '^ *[0-9]')" -eq 0 ] && [ "$("$BQ" -d --since 1h | grep -c '^ *[0-9]')" -eq 4 ]
ok $? "--until 1h (an hour ago): none; --since 1h: all four"
"$BQ" -d --since tomorrow >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "needs a time" "$TMP/err"
ok $? "a time that does not read: usage error"
$AS_NOBODY "$BQ" -d | grep -q "^No ended jobs"
ok $? "nobody's bq -d: nobody's jobs, none"
$AS_NOBODY "$BQ" -d -a --json | grep -q '"id":2,.*"node_list":null.*"cpu_us":null' &&
	"$BQ" -d --json | grep -q '"id":2,.*"node_list":"node\[001-004\]".*"cpu_us":[0-9]'
ok $? "another user sees the public fields; the owner also nodes and CPU time"

"$BQ" --swf >export.swf
grep -q "^; MaxNodes: 4$" export.swf && [ "$(grep -c '^[0-9]' export.swf)" -eq 4 ]
ok $? "bq --swf: a header with the partition's size and a line per ended job"
grep -q "^4 [0-9]* -1 -1 -1 .* 5 0 " export.swf
ok $? "the cancelled job: never ran, status 5"
grep -q "^; Guarantee: 2 " export.swf
ok $? "the guarantees are kept (as comments)"

# The export replays to the live schedule (starts to the second: the live
# run's times are microseconds, the trace's whole seconds).
"$BFD" --replay export.swf --policy conservative --jobs-out replayed.swf >/dev/null 2>"$TMP/err"
ok $? "backfilld --replay reads the export"
same=0
for id in 1 2 3; do
	live=$(awk -v j="$id" '$1 == j { print $2 + $3 }' export.swf)
	sim=$(awk -v j="$id" '$1 == j { print $2 + $3 }' replayed.swf)
	d=$((live - sim))
	[ "$d" -ge -1 ] && [ "$d" -le 1 ] || { echo "# job $id: live start $live, replayed $sim"; same=1; }
done
ok $same "each job starts in the replay when it started live (within a second)"

# -w: names and exit statuses whole; --swf takes neither --json nor -w.
"$BSUB" -n 1 -t 1:00 -o /dev/null -J a-job-name-longer-than-twenty sleep 60 >/dev/null	# 5
wait_state 5 running && "$BKILL" 5 >/dev/null && wait_state 5 cancelled 10
"$BQ" -d >out && "$BQ" -d -w >wide
grep -q "^ *5 .* a-job-name-l+ .* SIGTERM " out &&
	grep -q "^ *5 .* a-job-name-longer-than-twenty .*killed by signal 15 (SIGTERM) " wide &&
	[ "$(awk '{ if (length($0) > w) w = length($0) } END { print w }' out)" -le 100 ] &&
	head -1 wide | grep -q " START " && ! head -1 out | grep -q " START "
ok $? "bq -d cuts a long name with + and fits 100 columns, the exit column never cut; bq -d -w shows them whole, and START"
"$BQ" --swf --json >/dev/null 2>&1
r1=$?
"$BQ" --swf -w >/dev/null 2>&1
r2=$?
[ "$r1" -eq 2 ] && [ "$r2" -eq 2 ]
ok $? "bq --swf with --json or -w: usage error"

# exit (LSF's EXIT): 6 exits 3, 7 kills itself with SIGSEGV; apart from
# done in bq -d, and failed (status 0) in the SWF, done staying completed.
"$BSUB" -n 1 -t 1:00 -o /dev/null sh -c 'exit 3' >/dev/null	# 6
"$BSUB" -n 1 -t 1:00 -o /dev/null sh -c 'kill -SEGV $$' >/dev/null	# 7
wait_state 6 "$ENDED" 10 && wait_state 7 "$ENDED" 10
"$BQ" -d >out && "$BQ" -d -w >wide
grep -q "^ *6 .* exit  *3 " out && grep -q "^ *7 .* exit  *SIGSEGV " out &&
	grep -q "^ *7 .* exit  *killed by signal 11 (SIGSEGV)" wide && grep -q "^ *2 .* done  *0 " out
ok $? "bq -d: exit apart from done, with the exit code or the signal"
"$BQ" -d --json >json.out && grep -q '"id":6,.*"state":"exit",.*"exit_code":3,' json.out &&
	grep -q '"id":7,.*"state":"exit",.*"exit_signal":11,.*"exit_signal_name":"SIGSEGV",' json.out
ok $? "bq -d --json: state exit, exit_code 3; exit_signal 11 (SIGSEGV)"
"$BQ" --swf >export2.swf
st() { awk -v j="$1" '$1 == j { print $11 }' export2.swf; }
[ "$(st 6)" = 0 ] && [ "$(st 7)" = 0 ] && [ "$(st 2)" = 1 ] && [ "$(st 4)" = 5 ]
ok $? "bq --swf: status 0 (failed) for exit, 1 for done, 5 for cancelled ($(st 6) $(st 7) $(st 2) $(st 4))"
done_testing
