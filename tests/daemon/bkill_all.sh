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
done_testing
