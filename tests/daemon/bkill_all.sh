#!/bin/sh
# bkill 0 cancels every unfinished job of the user, however many: more
# than one request holds (4,096 ids) go in several, and the waiting jobs go
# before the running ones, so that none starts on the nodes a cancelled
# running job frees. (It used to take the first 4,096 and say nothing.)
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

start_daemon --nodes 2 --policy conservative --kill-grace 0
printf '#!/bin/sh\nsleep 600\n' >long.sh
"$BSUB" -n 2 -t 60 -o /dev/null long.sh >/dev/null && wait_state 1 running
ok $? "job 1 runs on both nodes"
submit_many 1025 -n 1 -t 10 -o /dev/null long.sh
queued=$("$BQ" -a --json | grep -o '"state":"queued"' | wc -l)
[ "$queued" -eq 4100 ]
ok $? "4,100 jobs queue behind it ($queued)"

"$BKILL" 0 >kill.out 2>kill.err
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ': cancelled$' kill.out)" -eq 4101 ] && ! [ -s kill.err ]
ok $? "bkill 0 cancels all 4,101 (exit $rc, $(grep -c ': cancelled$' kill.out) lines; $(head -c 100 kill.err))"
[ "$(tail -n 1 kill.out)" = "Job 1: cancelled" ] && [ "$(head -n 1 kill.out)" = "Job 4101: cancelled" ]
ok $? "the newest waiting job first, the running one last ($(head -n 1 kill.out); $(tail -n 1 kill.out))"
wait_state 1 "cancelled"
left=$("$BQ" -a --json | grep -c '"state":"\(queued\|running\)"')
[ "$left" -eq 0 ]
ok $? "no job is left waiting or running ($left)"
[ "$(grep -c ': started on' daemon.log)" -eq 1 ]
ok $? "no waiting job started on the nodes job 1 left ($(grep -c ': started on' daemon.log) starts)"
"$BKILL" 0 >again.out
ok $? "a second bkill 0 exits 0"
grep -q "^No unfinished jobs of yours to cancel" again.out
ok $? "and says there is nothing to cancel"
stop_daemon

# A listing cut short (BACKFILLD_TEST_LIST_ROWS: three rows a listing)
# shows the running jobs and the head of the queue only: bkill 0 goes on
# in rounds until every job is cancelled, running ones included.
rm -rf state.db* spool
: >daemon.log
BACKFILLD_TEST_LIST_ROWS=3 start_daemon --nodes 4 --policy conservative --kill-grace 0
for k in 1 2 3 4; do "$BSUB" -n 1 -t 60 -o /dev/null long.sh >/dev/null; done
for k in 1 2 3 4 5; do "$BSUB" -n 4 -t 60 -o /dev/null long.sh >/dev/null; done
wait_state 4 running
"$BKILL" 0 >cut.out 2>cut.err
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ': cancelled$' cut.out)" -eq 9 ]
ok $? "with a listing of 3 rows, bkill 0 cancels all 9 (exit $rc; $(grep -c ': cancelled$' cut.out) lines; $(head -c 100 cut.err))"
i=0
while [ $i -lt 50 ] && [ "$("$BQ" -a --json | grep -c '"state":"\(queued\|running\)"')" -ne 0 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(grep -c ': started on' daemon.log)" -eq 4 ] && [ $i -lt 50 ]
r=$?
ok $r "none of the waiting ones started, and nothing is left ($(grep -c ': started on' daemon.log) starts, $i)"
[ $r -eq 0 ] || { sed 's/^/#   /' cut.out; grep -E ": (started|cancel|ended|terminat)" daemon.log | sed 's/^/#   /'; }
stop_daemon
"$BKILL" --socket "$TMP/none.sock" 0 >none.out 2>none.err
rc=$?
[ $rc -eq 3 ] && ! grep -q "No unfinished" none.out
ok $? "bkill 0 without a daemon exits 3, and does not say there is nothing to cancel (exit $rc)"
done_testing
