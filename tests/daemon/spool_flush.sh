# The flush of the spool that makes new scripts durable, and the store's
# checkpoints, run on a thread of their own (daemon/sys/syncer.c, submit.c):
# while a flush is under way the loop answers everyone else; the
# submissions it covers are answered after it, show nowhere before, and a
# crash before it forgets them (never acknowledged). The failpoint
# BACKFILLD_TEST_SYNC_HOLD holds a flush while its file exists.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

printf '#!/bin/sh\nsleep "$1"\n' >s.sh
export BACKFILLD_TEST_SYNC_HOLD="$TMP/hold"

# script_of ID: until the spool holds job ID's script (the request was
# taken), 10 s at most.
script_of() {
	i=0
	while [ $i -lt 100 ] && ! [ -f "$TMP/spool/jobs/$1/script" ]; do sleep 0.1; i=$((i + 1)); done
	[ -f "$TMP/spool/jobs/$1/script" ]
}
ids() { "$BQ" -a --json | tr ',' '\n' | sed -n 's/.*"id":\([0-9]*\).*/\1/p' | tr '\n' ' '; }

start_daemon --nodes 2 --policy conservative

# 1. Two submissions while the flush of the first is held.
touch hold
"$BSUB" -n 2 -t 1:00 s.sh 600 >a.out 2>&1 &
A=$!
script_of 1
ok $? "the first submission's script is in the spool"
timeout 20 "$BQ" -a >list1.out 2>&1
ok $? "a listing is answered while the flush is held"
! grep -q "^ *1 " list1.out && ! [ -s a.out ]
ok $? "it does not show the job, whose submission is not answered yet"
"$BSUB" -n 2 -t 1:00 s.sh 600 >b.out 2>&1 &
B=$!
script_of 2
timeout 20 "$BQ" -l 2 >l2.out 2>&1
grep -q "no such job\|no job" l2.out && ! [ -s a.out ] && ! [ -s b.out ]
ok $? "a second submission waits for the next flush; bq -l 2 finds no job ($(head -c 80 l2.out))"
rm -f hold
wait_file a.out && wait_file b.out && wait "$A" && wait "$B"
ok $? "once the flush is done, both are answered"
grep -q "^Job 1 submitted" a.out && grep -q "^Job 2 submitted" b.out
ok $? "in the order they came, with their ids ($(head -c 60 a.out); $(head -c 60 b.out))"
[ "$(ids)" = "1 2 " ]
ok $? "and both are listed ($(ids))"

# 2. A crash while a flush is held: the submission was never answered and
# is gone after the restart, its script swept from the spool.
touch hold
"$BSUB" -n 2 -t 1:00 s.sh 600 >c.out 2>&1 &
C=$!
script_of 3
stop_daemon KILL
wait "$C"
rc=$?
rm -f hold
[ $rc -ne 0 ] && ! grep -q submitted c.out
ok $? "the client saw no acknowledgement (exit $rc: $(head -c 80 c.out))"
start_daemon --nodes 2 --policy conservative
[ "$(ids)" = "1 2 " ] && ! [ -e "$TMP/spool/jobs/3" ]
ok $? "after the restart: jobs $(ids)and no spool entry for the one never acknowledged"
"$BSUB" -n 2 -t 1:00 s.sh 600 >d.out 2>&1
id=$(sed -n 's/^Job \([0-9]*\) submitted.*/\1/p' d.out)
[ -n "$id" ] && [ "$id" -ge 3 ] && [ "$(ids)" = "1 2 $id " ]
ok $? "the next submission is job $id, after the others"

# 3. A stop while a flush is held: the stopping daemon finishes it and
# answers the submission it took.
touch hold
"$BSUB" -n 2 -t 1:00 s.sh 600 >e.out 2>&1 &
E=$!
script_of $((id + 1))
kill -TERM "$DPID"
sleep 0.5
rm -f hold
wait "$DPID"
DPID=
wait "$E"
grep -q "^Job $((id + 1)) submitted" e.out
ok $? "a stop answers a submission whose flush was under way ($(head -c 60 e.out))"
start_daemon --nodes 2 --policy conservative
[ "$(ids)" = "1 2 $id $((id + 1)) " ]
ok $? "and the job is there after the restart ($(ids))"
stop_daemon

# 4. A flush that fails (BACKFILLD_TEST_SYNC_FAIL: EIO, as a failing disk):
# its submissions are refused, not acknowledged with a script that may not
# be on disk; their scripts go; the next flush that works takes new ones.
export BACKFILLD_TEST_SYNC_FAIL="$TMP/fail"
start_daemon --nodes 2 --policy conservative
touch fail
"$BSUB" -n 2 -t 1:00 s.sh 600 >f.out 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "could not make the script durable" f.out
ok $? "a submission whose flush failed is refused (exit $rc: $(head -c 100 f.out))"
[ "$(ids)" = "1 2 $id $((id + 1)) " ] && grep -q "syncing the spool: .*refused" daemon.log
ok $? "it is not listed ($(ids)), and the log says why"
rm -f fail
"$BSUB" -n 2 -t 1:00 s.sh 600 >g.out 2>&1
gid=$(sed -n 's/^Job \([0-9]*\) submitted.*/\1/p' g.out)
[ -n "$gid" ] && [ -f "spool/jobs/$gid/script" ] && ! [ -e "spool/jobs/$((id + 2))" ]
ok $? "once the disk is back, the next is taken (job $gid); the refused one's script is gone"
cancel_all
stop_daemon
unset BACKFILLD_TEST_SYNC_FAIL

# 5. Checkpoints on the thread: with one asked every few pages of log,
# the database file takes the log's pages while the daemon runs (SQLite
# would not before 1,000 pages, 4 MiB), and none fails.
export BACKFILLD_TEST_CHECKPOINT_PAGES=4
unset BACKFILLD_TEST_SYNC_HOLD
rm -rf state.db* spool
start_daemon --nodes 2 --policy conservative
"$BSUB" -n 1 -t 1:00 s.sh 0 >/dev/null
before=$(stat -c %s state.db)
k=0
while [ $k -lt 40 ]; do "$BSUB" -n 2 -t 1:00 s.sh 0 >/dev/null || break; k=$((k + 1)); done
after=$(stat -c %s state.db)
[ "$k" -eq 40 ] && [ "$after" -gt "$before" ]
ok $? "40 submissions: the database file grew from $before to $after bytes (checkpointed)"
! grep -q "checkpointing the store\|checkpoints of the store stay" daemon.log
r=$?
ok $r "no checkpoint failed"
[ $r -eq 0 ] || grep "checkpoint" daemon.log | sed 's/^/#   /'
cancel_all
stop_daemon
done_testing
