#!/bin/sh
# Two bkills of many jobs at once: the daemon cancels them a few hundred a
# loop turn for both together (answering other clients between), answers
# each once all of its jobs are stored, logs each cancel once, and removes
# the jobs' spooled files a few a turn after.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

start_daemon --nodes 2 --policy conservative --kill-grace 0
ok $? "the daemon starts"
printf '#!/bin/sh\nsleep 600\n' >long.sh
"$BSUB" -n 2 -t 60 -o /dev/null long.sh >/dev/null && wait_state 1 running
ok $? "job 1 runs on both nodes"
submit_many 150 -n 1 -t 10 -o /dev/null long.sh
[ "$("$BQ" -a --json | grep -o '"state":"queued"' | wc -l)" -eq 600 ]
ok $? "600 jobs queue behind it"
[ "$(ls spool/jobs | wc -l)" -eq 601 ]
ok $? "each has its spool directory"

# Two at once, sharing the turns' cancels: ids 2..301 and 9999 that does
# not exist, and 302..601.
"$BKILL" $(seq 2 301) 9999 >out 2>err &
other=$!
"$BKILL" $(seq 302 601) >out2 2>err2
rc2=$?
wait $other
rc=$?
[ $rc -ne 0 ] && [ "$(grep -c ': cancelled$' out)" -eq 300 ] && grep -q "9999: no such job" out err
ok $? "bkill of 301 ids: 300 cancelled, the unknown one named (exit $rc)"
[ $rc2 -eq 0 ] && [ "$(grep -c ': cancelled$' out2)" -eq 300 ]
ok $? "and at the same time bkill of 300 more: all cancelled (exit $rc2)"
[ "$("$BQ" -a --json | grep -o '"state":"queued"' | wc -l)" -eq 0 ]
ok $? "no job is queued after the answer"
[ "$(grep -c "cancelled by root" daemon.log)" -eq 600 ]
ok $? "each cancel is logged once ($(grep -c "cancelled by root" daemon.log) lines)"
i=0
while [ $i -lt 50 ] && [ "$(ls spool/jobs | wc -l)" -gt 1 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(ls spool/jobs)" = 1 ]
ok $? "the spool keeps only the running job's directory ($(ls spool/jobs | wc -l) left)"
"$BKILL" 2 >out 2>&1
grep -q "already ended\|finished\|done" out
ok $? "a second bkill of one of them says it ended: $(cat out)"
done_testing
