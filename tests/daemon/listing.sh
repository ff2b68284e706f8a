#!/bin/sh
# A listing larger than one answer keeps its head (the running jobs, then
# the queue in order, then the recently ended) and says how many jobs there
# were. The daemon cuts it where the frame is full; here, for the test, at
# 5 rows (BACKFILLD_TEST_LIST_ROWS), so that a short queue is cut too.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

BACKFILLD_TEST_LIST_ROWS=5 start_daemon --nodes 2 --policy conservative --kill-grace 0
ok $? "the daemon starts (listings cut at 5 rows)"
printf '#!/bin/sh\nsleep 600\n' >long.sh
"$BSUB" -n 2 -t 60 -o /dev/null long.sh >/dev/null && wait_state 1 running
ok $? "job 1 runs on both nodes"
i=0
while [ $i -lt 9 ]; do
	"$BSUB" -n 1 -t 10 -o /dev/null long.sh >/dev/null || break
	i=$((i + 1))
done
"$BKILL" 10 >/dev/null
[ $i -eq 9 ] && wait_state 10 "cancelled\|killed"
ok $? "9 jobs queue behind it; the last is cancelled"

# ids ARGS...: the job ids bq lists, in order, and its complaint.
ids() { "$BQ" "$@" 2>err | awk '$1 ~ /^[0-9]+$/ { print $1 }' | tr '\n' ' '; }
[ "$(ids -a)" = "1 2 3 4 5 " ] && grep -q "showing 5 of 10 jobs" err
ok $? "bq -a: the running job and the first 4 queued, in order; 'showing 5 of 10 jobs': $(cat err)"
[ "$(ids)" = "1 2 3 4 5 " ] && grep -q "showing 5 of 10 jobs" err
ok $? "bq (one's own jobs): the same cut and count"
"$BQ" -a --json 2>/dev/null | grep -o '"id":[0-9]*' | tr '\n' ' ' >json
[ "$(cat json)" = '"id":1 "id":2 "id":3 "id":4 "id":5 ' ]
ok $? "bq -a --json: the same five jobs"
"$BKILL" 2 3 4 5 6 7 >/dev/null
[ "$(ids -a)" = "1 8 9 7 6 " ] && grep -q "showing 5 of 10 jobs" err
ok $? "after 6 more cancels: running, the 2 queued, then the recently ended, the latest first"
done_testing
