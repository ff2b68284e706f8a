# EASY's predicted starts for every queued job, however long the queue: the
# daemon plans them a slice per loop turn (here 3 jobs a slice, so that 24
# queued take 8 turns) and answers with a whole forecast, never half of one.
. "$BF_TOP/tests/lib.sh"

cd "$TMP" || exit 1
BACKFILLD_TEST_FORECAST_SLICE=3 start_daemon --nodes 2 --policy easy --kill-grace 0
ok $? "the daemon starts (EASY, 2 nodes, forecasts of 3 jobs a slice)"
printf '#!/bin/sh\nsleep 600\n' >long.sh
printf '#!/bin/sh\ntrue\n' >short.sh
"$BSUB" -n 2 -t 60 long.sh >/dev/null && wait_state 1 running
ok $? "a job on both nodes runs"
i=0
while [ $i -lt 24 ]; do
	"$BSUB" -n 1 -t 10 short.sh >/dev/null || break
	i=$((i + 1))
done
[ $i -eq 24 ]
ok $? "24 jobs of one node queue behind it"

# starts: "id kind start_us" of each queued job, in queue order, from one
# listing.
starts() {
	"$BQ" -a --json | tr '\n' ' ' | sed 's/},/}\n/g' | grep '"state":"queued"' |
		sed -n 's/.*"id":\([0-9]*\),.*"start_us":\([0-9]*\),"start_kind":"\([a-z]*\)".*/\1 \3 \2/p'
}
# pairs FILE: two jobs start at each time, each pair 10 minutes after the
# one before, in queue order; prints the number of jobs.
pairs() {
	awk 'NR == 1 { t0 = $3 } { want = t0 + int((NR - 1) / 2) * 600000000;
	     if ($3 != want) bad = 1 } END { print bad ? "bad" : NR }' "$1"
}
starts >s1
[ "$(wc -l <s1)" -eq 24 ] && [ "$(grep -c ' predicted ' s1)" -eq 23 ] &&
	[ "$(head -1 s1 | cut -d' ' -f2)" = guaranteed ] && [ "$(pairs s1)" = 24 ]
ok $? "every queued job has a start: the head guaranteed, 23 predicted, two at a time"
"$BQ" -a | grep -c ' ~[A-Z0-9]' | grep -qx 23
ok $? "bq marks the 23 predicted starts"

# A queued job cancelled: the jobs after it move up, in a new forecast.
"$BKILL" 7 >/dev/null
starts >s2
[ "$(wc -l <s2)" -eq 23 ] && [ "$(pairs s2)" = 23 ] && [ "$(sed -n 6p s1 | cut -d' ' -f1)" = 7 ] &&
	[ "$(sed -n 6p s2 | cut -d' ' -f1)" = 8 ] &&
	[ "$(sed -n 6p s2 | cut -d' ' -f3)" = "$(sed -n 6p s1 | cut -d' ' -f3)" ] &&
	[ "$(sed -n 7p s1 | cut -d' ' -f3)" -gt "$(sed -n 6p s1 | cut -d' ' -f3)" ]
ok $? "after a cancel the forecast is made again: job 8 moves up into job 7's start"
"$BSUB" -n 1 -t 10 short.sh | grep -q "predicted to start at"
ok $? "bsub's answer predicts the start of a job joining the tail"
done_testing	# (the exit cancels the jobs, then stops the daemon: lib.sh)
