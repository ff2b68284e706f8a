#!/bin/sh
# Holding and releasing queued jobs (bstop(1), bctl(8)): a held job leaves
# the plan and stays held across a restart; released, it queues again
# behind the jobs waiting then; owners hold their own, admins any; no
# other job's guarantee moves later.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
BSTOP="$BF_BUILD/bstop"; BRESUME="$BF_BUILD/bresume"; BCTL="$BF_BUILD/bctl"
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
chmod 755 "$TMP"
printf '#!/bin/sh\nsleep 300\n' >long.sh
chmod 644 long.sh
# qorder: the ids of the queued jobs in the queue's order.
qorder() {
	"$BQ" -a --json | tr '\n' ' ' | grep -o '{[^{}]*}' |
		sed -n 's/.*"id":\([0-9]*\),.*"state":"queued".*/\1/p' | tr '\n' ' '
}

"$BSTOP" >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "bstop without ids: usage error"
"$BSTOP" x >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "bstop x: usage error"

start_daemon --nodes 4 --policy conservative --kill-grace 1 || exit 1
# guarantee ID: the job's guaranteed start as bq --json gives it (µs).
guarantee() { "$BQ" -l "$1" --json | sed -n 's/.*"start_us":\([0-9]*\).*"start_kind":"guaranteed".*/\1/p'; }

"$BSUB" -n 4 -t 1:00 -o /dev/null long.sh >/dev/null		# 1: runs
"$BSUB" -n 4 -t 1:00 -o /dev/null long.sh >/dev/null		# 2: after 1
"$BSUB" -n 4 -t 1:00 -o /dev/null long.sh >/dev/null		# 3: after 2
wait_state 1 running
g3=$(guarantee 3)
"$BSTOP" 2 >out
[ $? -eq 0 ] && grep -q "^Job 2: held$" out
ok $? "bstop 2: held"
"$BQ" | grep -q "^ *2 .* held "
ok $? "bq shows it held"
"$BQ" -l 2 | grep -q "^Pending reason: *held (bresume 2 releases it)$" &&
	"$BQ" -l 3 | grep -q "^Pending reason: *waiting for its guaranteed start$"
ok $? "bq -l gives the pending reason: held; waiting for its guaranteed start"
g3b=$(guarantee 3)
[ -n "$g3" ] && [ -n "$g3b" ] && [ "$g3b" -lt "$g3" ]
ok $? "job 3's guarantee moved earlier into the room job 2 left ($g3 -> $g3b)"
"$BSTOP" 1 99 >out
[ $? -eq 1 ] && grep -q "^Job 1: not held: it is running" out && grep -q "^Job 99: no such job" out
ok $? "a running job is not held, a missing one is said (exit 1)"
$AS_NOBODY "$BSTOP" 3 >out
[ $? -eq 1 ] && grep -q "^Job 3: not your job" out
ok $? "another user's job: not yours"
$AS_NOBODY "$BCTL" hold 3 >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "bctl is for root" "$TMP/err"
ok $? "bctl hold by a user who is not an admin: refused"
grep -q "job 2: held by root (uid 0)" daemon.log
ok $? "the log says who held it"

stop_daemon
start_daemon --nodes 4 --policy conservative --kill-grace 1 || exit 1
"$BQ" | grep -q "^ *2 .* held "
ok $? "after a restart job 2 is still held"

"$BRESUME" 2 >out
[ $? -eq 0 ] && grep -q "^Job 2: released: queued again" out
ok $? "bresume 2: queued again"
g2=$(guarantee 2); g3c=$(guarantee 3)
[ -n "$g2" ] && [ "$g2" -gt "$g3c" ] && [ "$g3c" -le "$g3b" ]
ok $? "it queues behind job 3, whose guarantee does not move ($g3c <= $g3b < $g2)"
"$BRESUME" 2 >out
[ $? -eq 1 ] && grep -q "not released: it is not held" out
ok $? "releasing a job that is not held: said so"
"$BCTL" hold 3 >out && grep -q "^Job 3: held$" out && "$BCTL" release 3 | grep -q "^Job 3: released"
ok $? "bctl hold and release: an admin"
"$BSTOP" 2 >/dev/null && "$BKILL" 2 | grep -q "^Job 2: cancelled"
ok $? "a held job can be cancelled"
"$BCTL" status | grep -q "^jobs: *1 running, 1 queued$"
ok $? "bctl status counts the jobs"

# bctl limit: an owner shortens, an admin sets any; a shorter running
# limit kills the job and the queue moves up.
$AS_NOBODY "$BCTL" limit 3 30 >out
[ $? -eq 1 ] && grep -q "^Job 3: not changed: a user may only shorten" out
ok $? "bctl limit on another user's job, not an admin: refused"
"$BCTL" limit 3 2h >out && grep -q "^Job 3: time limit changed$" out &&
	"$BQ" -l 3 | grep -q "^Time limit: *2:00:00$"
ok $? "bctl limit 3 2h (admin, queued, longer): done, bq -l shows it"
grep -q "job 3: time limit set to 2:00:00 by root (uid 0)" daemon.log
ok $? "the log says who changed it"
"$BCTL" limit 3 abc >/dev/null 2>err
[ $? -eq 2 ] && grep -q "^bctl: limit: 'abc' is not a time limit: unexpected 'a' in time limit" err &&
	! grep -q "more than 0" err
ok $? "bctl limit 3 abc: usage error that says it is not a time, not that it must be more than 0"
(cd / && $AS_NOBODY "$BSUB" -n 4 -t 1:00 -cwd /tmp sleep 300 >/dev/null)	# job 4, nobody's
$AS_NOBODY "$BCTL" limit 4 30 | grep -q "^Job 4: time limit changed$" &&
	"$BQ" -l 4 | grep -q "^Time limit: *0:30:00$"
ok $? "an owner shortens their own job's limit with bctl limit"
$AS_NOBODY "$BCTL" limit 4 2:00 >out
[ $? -eq 1 ] && grep -q "only shorten" out
ok $? "but may not lengthen it"
"$BCTL" limit 1 1s >out && grep -q "^Job 1: time limit changed$" out
ok $? "bctl limit 1 1s: the running job's limit is already past"
wait_state 1 killed 10 && wait_state 3 running 10
ok $? "so job 1 is killed at once, and job 3 starts"

# bctl top: first in the queue; the job it passes is told.
"$BSUB" -n 4 -t 1:00 -o /dev/null long.sh >/dev/null		# job 5
"$BSUB" -n 4 -t 1:00 -o /dev/null long.sh >/dev/null		# job 6
wait_state 6 queued
"$BCTL" top 6 >out && grep -q "^Job 6: first in the queue$" out
ok $? "bctl top 6"
"$BQ" -l 5 | grep -q "^Guarantee broken: .*(an admin put another job first (bctl top))$" &&
	grep -q "job 6: moved to the front of the queue by root (uid 0)" daemon.log
ok $? "job 5, now behind it, is told; the log says who"
g5=$(guarantee 5); g6=$(guarantee 6)
[ -n "$g5" ] && [ -n "$g6" ] && [ "$g6" -lt "$g5" ]
ok $? "job 6 is now guaranteed before job 5"
$AS_NOBODY "$BCTL" top 5 >/dev/null 2>&1
[ $? -eq 1 ]
ok $? "bctl top by a user who is not an admin: refused"
"$BCTL" top 3 >out
[ $? -eq 1 ] && grep -q "^Job 3: not moved: it is not queued" out
ok $? "bctl top on a running job: not moved"

# bctl requeue: the running job is ended and queued again, behind the rest.
"$BCTL" requeue 3 >out && grep -q "^Job 3: being terminated, to queue again$" out
ok $? "bctl requeue 3"
wait_state 3 queued 10 && grep -q "job 3: ended (killed by signal 15) and queued again (bctl requeue)" daemon.log &&
	grep -q "job 3: to be queued again: terminating it" daemon.log && ! grep -q "job 3: cancelled" daemon.log
ok $? "job 3 ended and is queued again, said in the log"
"$BQ" -l 3 | grep -q "^Start: *.*guaranteed" && "$BQ" -l 3 | grep -q "^Exit status: *-$"
ok $? "with a new guarantee and no trace of its last run's end"
"$BCTL" requeue 5 >out
[ $? -eq 1 ] && grep -q "not requeued: it is not running" out
ok $? "a queued job is not requeued"
"$BCTL" top 5 >/dev/null	# (4, nobody's, was before it)
before=$(qorder)
broken=$(grep -c "guarantee broken" daemon.log)
stop_daemon
start_daemon --nodes 4 --policy conservative --kill-grace 1 || exit 1
"$BQ" -l 3 | grep -q "^State: *queued$"
ok $? "after a restart job 3 is queued"
after=$(qorder)
[ "$after" = "$before" ] && [ "${after#5 }" != "$after" ] &&
	[ "$(grep -c "guarantee broken" daemon.log)" -eq "$broken" ]
ok $? "and the queue keeps the order bctl top made ($after), nothing more broken"
cancel_all
stop_daemon

# Under EASY a job put first is the head, with its reservation, also after
# a restart (nothing else is promised, so a lost order would go unsaid).
rm -rf state.db* spool
start_daemon --nodes 4 --policy easy --kill-grace 1 || exit 1
for i in 1 2 3 4; do "$BSUB" -n 4 -t 1:00 -o /dev/null long.sh >/dev/null; done
wait_state 1 running && "$BCTL" top 4 >/dev/null
"$BQ" -l 4 | grep -q "(guaranteed)" && "$BQ" -l 2 | grep -q "(predicted"
ok $? "easy: bctl top 4 makes job 4 the head, with the head's guarantee"
g4=$(guarantee 4)
stop_daemon
start_daemon --nodes 4 --policy easy --kill-grace 1 || exit 1
[ "$(qorder)" = "4 2 3 " ] && [ "$(guarantee 4)" = "$g4" ] && "$BQ" -l 2 | grep -q "(predicted"
ok $? "easy, after a restart: job 4 is still the head ($(qorder)), its guarantee kept"
cancel_all
stop_daemon

# A requeued job that ends while the daemon is down queues again at the
# restart, behind the jobs waiting (it was failed as "invalid argument").
rm -rf state.db* spool
printf '#!/bin/sh\ntrap "sleep 1; exit 0" TERM\nsleep 300 &\nwait\nwait\n' >slow.sh
chmod 644 slow.sh
start_daemon --nodes 4 --policy conservative --kill-grace 30 || exit 1
"$BSUB" -n 4 -t 1:00 -o /dev/null slow.sh >/dev/null	# 1: runs
"$BSUB" -n 4 -t 1:00 -o /dev/null long.sh >/dev/null	# 2: waits
"$BSUB" -n 4 -t 1:00 -o /dev/null long.sh >/dev/null	# 3: waits
wait_state 1 running && "$BCTL" requeue 1 >/dev/null
stop_daemon
sleep 2
start_daemon --nodes 4 --policy conservative --kill-grace 30 || exit 1
wait_state 1 queued 5 && wait_state 2 running 5 && [ "$(qorder)" = "3 1 " ]
ok $? "a job requeued that ended while the daemon was down is queued again, behind the waiting jobs ($(qorder))"
cancel_all
stop_daemon

# An ordinary user holds and releases their own job, then sees it in the
# history.
rm -rf state.db* spool
start_daemon --nodes 4 --policy conservative --kill-grace 1 || exit 1
(cd / && $AS_NOBODY "$BSUB" -n 4 -t 1:00 -cwd /tmp sleep 300 >/dev/null)	# 1: runs
(cd / && $AS_NOBODY "$BSUB" -n 4 -t 1:00 -cwd /tmp sleep 300 >/dev/null)	# 2: waits
wait_state 1 running
$AS_NOBODY "$BSTOP" 2 >out && grep -q "^Job 2: held$" out && wait_state 2 held 5 &&
	$AS_NOBODY "$BRESUME" 2 >out && grep -q "^Job 2: released" out && wait_state 2 queued 5
ok $? "nobody: bstop and bresume on its own job"
$AS_NOBODY "$BKILL" 0 >/dev/null && wait_state 1 cancelled 10 &&
	[ "$($AS_NOBODY "$BQ" --swf | grep -c '^[0-9]')" -eq 2 ]
ok $? "nobody: bq --swf has its two ended jobs"
cancel_all
stop_daemon
done_testing
