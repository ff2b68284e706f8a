# What a client is shown is what a restart restores (issue 7, invariant 3
# of make torture). A cancel or an end moves guarantees earlier in the core
# at once, but the store has them only after the loop pass's commit, which a
# storm of requests can hold back; a listing answered in between showed a
# guarantee that a kill -9 took back, silently. The failpoint
# BACKFILLD_TEST_COMMIT_HOLD holds the commits while the loop serves on.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

printf '#!/bin/sh\nsleep "$1"\n' >s.sh
export BACKFILLD_TEST_COMMIT_HOLD="$TMP/hold"

# guar ID: the guaranteed start bq -l shows (empty if none).
guar() {
	"$BQ" -l "$1" 2>/dev/null | sed -n 's/^Start: *\(.*\) at the latest (guaranteed)$/\1/p'
}
# shown FILE: the guaranteed start in a saved bq -l reply (empty if none).
shown() {
	sed -n 's/^Start: *\(.*\) at the latest (guaranteed)$/\1/p' "$1"
}
# earlier A B: the time A is before B (as bq prints them).
earlier() { [ "$(date -d "$1" +%s)" -lt "$(date -d "$2" +%s)" ]; }

# Two nodes. Job 1 runs on one; 2 and 3 need both, 3 planned after 2.
start_daemon --nodes 2 --policy conservative --kill-grace 5
"$BSUB" -n 1 -t 1:00 s.sh 3600 >/dev/null	# 1: an hour
"$BSUB" -n 2 -t 20s s.sh 1 >/dev/null		# 2
"$BSUB" -n 2 -t 20s s.sh 1 >/dev/null		# 3
wait_state 1 running
before=$(guar 3)
[ -n "$before" ]
ok $? "job 3 is guaranteed behind job 2 ($before)"

# 1. A cancel while the commit is held: the listing waits for it.
touch hold
"$BKILL" 2 >kill.out 2>&1 &
sleep 0.5
"$BQ" -l 3 >l1.out 2>&1 &
sleep 1
! [ -s l1.out ] && ! [ -s kill.out ]
ok $? "while the commit is held, neither the cancel nor a listing is answered"
rm -f hold
wait_file l1.out && wait_file kill.out
ok $? "once it is committed, both are"
moved=$(shown l1.out)
[ -n "$moved" ] && earlier "$moved" "$before"
ok $? "the listing shows job 3's new guarantee ($moved, earlier than $before)"

# 2. The same, then kill -9 before the commit: whatever a client was shown
# before the crash, the restart does not move job 3 later than that.
"$BSUB" -n 2 -t 20s s.sh 1 >/dev/null		# 4
"$BSUB" -n 2 -t 20s s.sh 1 >/dev/null		# 5
wait_state 5 queued
before5=$(guar 5)
touch hold
"$BKILL" 4 >kill4.out 2>&1 &
sleep 0.5
"$BSUB" -n 1 -t 10s s.sh 1 >sub.out 2>&1 &	# would be 6: never acknowledged
sleep 0.5
"$BQ" -l 5 >l5.out 2>&1 &
"$BQ" >list.out 2>&1 &
sleep 1
stop_daemon KILL
sleep 0.5
rm -f hold
start_daemon --nodes 2 --policy conservative --kill-grace 5
after5=$(guar 5)
seen=$(shown l5.out)
[ -n "$after5" ] && { [ -z "$seen" ] || ! earlier "$seen" "$after5"; }
ok $? "job 5 after the restart ($after5) is no later than shown before the crash (${seen:-nothing shown}; first $before5)"
! grep -q "^ *6 " list.out && ! grep -q "submitted" sub.out
ok $? "a job whose submission was never acknowledged was never listed"
"$BQ" -l 4 | grep -q "^State: *queued"
ok $? "the cancel that was never committed (nor answered) did not happen"

# 3. An end: job 7 ends early; a submission in the same pass compresses at
# once. The restart finds the end in the spool and compresses the restored
# plan too (what ended while the daemon was down is room anywhere).
"$BKILL" 1 4 5 >/dev/null
wait_state 1 "killed\|cancelled"
printf '#!/bin/sh\nsleep 3\ntouch "$1"\n' >end.sh
"$BSUB" -n 1 -t 2 s.sh 300 >/dev/null		# 7: 2 minutes
"$BSUB" -n 1 -t 10 end.sh "$TMP/8.end" >/dev/null	# 8: 10 minutes, ends at 3 s
"$BSUB" -n 2 -t 20s s.sh 1 >/dev/null		# 9: behind 8
wait_state 8 running
before9=$(guar 9)
touch hold
wait_file 8.end 10 && sleep 0.5	# bq would wait for the held commit
"$BSUB" -n 1 -t 10s s.sh 1 >/dev/null 2>&1 &
sleep 0.5
"$BQ" -l 9 >l9.out 2>&1 &
sleep 1
stop_daemon KILL
sleep 0.5
rm -f hold
start_daemon --nodes 2 --policy conservative --kill-grace 5
after9=$(guar 9)
seen=$(shown l9.out)
[ -n "$after9" ] && earlier "$after9" "$before9" && { [ -z "$seen" ] || ! earlier "$seen" "$after9"; }
ok $? "job 9 after the restart ($after9) is earlier than before job 8 ended ($before9), and no later than shown (${seen:-nothing shown})"
! grep -q "guarantee broken" "$TMP/daemon.log"
ok $? "no guarantee was broken"
done_testing
