# The live daemon with real jobs: start, environment, guarantees, kill at
# the limit, cancel, a second user, restarts (clean and kill -9).
. "$BF_TOP/tests/lib.sh"

chmod 755 "$TMP"	# the second user's jobs run here too
cd "$TMP" || exit 1

# jfield ID KEY: a number from bq -l ID --json ("null" if none).
jfield() {
	"$BQ" -l "$1" --json 2>/dev/null | tr ',' '\n' | sed -n "s/^ *\"$2\": *\([-0-9a-z]*\).*/\1/p" | head -1
}

start_daemon --nodes 4 --policy conservative --kill-grace 1
ok $? "the daemon starts on a temporary socket, database and spool"

printf '#!/bin/sh\necho "id=$BSUB_JOBID n=$BSUB_NNODES nodes=$BSUB_NODES"\ncat "$BSUB_HOSTFILE"\necho "args=$*"\n' >env.sh
"$BSUB" -n 2 -t 1:00 env.sh one two | grep -q "^Job 1 submitted"
ok $? "bsub submits and prints the job id"
wait_state 1 done
ok $? "the job runs and ends as done"
grep -q "^id=1 n=2 nodes=node001 node002$" bsub-1.out && grep -q "^node002$" bsub-1.out &&
	grep -q "^args=one two$" bsub-1.out
ok $? "it sees BSUB_JOBID, BSUB_NNODES, BSUB_NODES, BSUB_HOSTFILE and its arguments"
printf '#!/bin/sh\necho before\n' >edit.sh
"$BSUB" -n 1 -t 10s -o "$TMP/edit.out" edit.sh >/dev/null
printf '#!/bin/sh\necho after\n' >edit.sh
wait_state 2 done && grep -q before edit.out && ! grep -q after edit.out
ok $? "the script is spooled at submission: editing it afterwards changes nothing"

# A job that cannot start says why; the default output path is shown.
# (bsub refuses a directory that is missing at submission; one named with
# %J is only made at the start, so it gets past bsub.)
"$BSUB" -n 1 -t 10s -o /nonexistent/%J/out.txt edit.sh >/dev/null	# job 3
wait_state 3 failed && "$BQ" -l 3 | grep -q "^Reason: .*opening /nonexistent/3/out.txt"
ok $? "a job whose output cannot be opened fails, and bq -l says why"
"$BQ" -l 1 | grep -q "^Output: *$TMP/bsub-1.out"
ok $? "bq -l shows where the output goes by default"

# Guarantees: B waits for A and is promised A's limit + grace; when A ends
# early, B starts earlier, never later.
printf '#!/bin/sh\nsleep ${1:-1}\n' >sleep.sh
"$BSUB" -n 4 -t 20s sleep.sh 2 >/dev/null	# job 5
"$BSUB" -n 4 -t 20s -J b sleep.sh 1 | grep -q "guaranteed to start by"
ok $? "a job that must wait is told its guaranteed start"
"$BQ" | grep -q "^ *5 .*<="
ok $? "bq marks the guaranteed start"
g4=$(jfield 5 start_us); s3=$(jfield 4 start_us)
[ -n "$g4" ] && [ "$g4" -le $((s3 + 21000000)) ]
ok $? "the guarantee is no later than A's limit plus the grace"
wait_state 5 done
s4=$(jfield 5 start_us)
[ "$s4" -le "$g4" ]
ok $? "B started no later than its guarantee ($s4 <= $g4)"

# Kill at the limit: SIGTERM, then SIGKILL after the grace.
printf '#!/bin/sh\ntrap "echo TERM" TERM\nwhile :; do sleep 0.1; done\n' >stubborn.sh
"$BSUB" -n 1 -t 1s stubborn.sh >/dev/null	# job 7
wait_state 6 killed 15
ok $? "a job past its time limit ends as killed"
"$BQ" -l 6 | grep -q "signal 9" && grep -q TERM bsub-6.out
ok $? "it got SIGTERM first and, ignoring it, SIGKILL after the grace"
rt=$(( $(jfield 6 end_us) - $(jfield 6 start_us) ))
[ "$rt" -ge 1000000 ]
ok $? "it was not killed before its limit (ran ${rt} us)"

# Cancel: a running job and a queued one.
"$BSUB" -n 4 -t 1:00 sleep.sh 30 >/dev/null	# 7 runs
"$BSUB" -n 4 -t 1:00 sleep.sh 30 >/dev/null	# 8 waits
wait_state 7 running
"$BKILL" 8 | grep -q "Job 8: cancelled" && wait_state 8 cancelled 5
ok $? "bkill cancels a queued job"
"$BKILL" 7 >/dev/null && wait_state 7 cancelled 10
ok $? "bkill cancels a running job (signalled)"
"$BKILL" 7 999 >"$TMP/k.out"
[ $? -eq 1 ] && grep -q "Job 7: already ended" "$TMP/k.out" && grep -q "Job 999: no such job" "$TMP/k.out"
ok $? "bkill says which ids it could not cancel, exit 1"

# The node view: which job holds which node.
nid=$("$BSUB" -n 3 -t 1:00 sleep.sh 30 | sed -n 's/^Job \([0-9]*\) submitted.*/\1/p')
wait_state "$nid" running
"$BQ" --nodes >"$TMP/nodes.out"
grep -q "^node\[001-003\] *busy *$nid *root" "$TMP/nodes.out" && grep -q "^node004 *free" "$TMP/nodes.out" &&
	grep -q "^4 nodes: 3 busy, 1 free" "$TMP/nodes.out"
ok $? "bq --nodes shows which job holds which node"
[ $? -eq 0 ] || sed 's/^/# /' "$TMP/nodes.out"
"$BKILL" "$nid" >/dev/null && wait_state "$nid" cancelled 10

# A second user: lists everyone's jobs, cannot cancel or inspect root's.
"$BSUB" -n 1 -t 1:00 sleep.sh 30 >/dev/null	# 10, root's
wait_state 10 running
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
$AS_NOBODY "$BKILL" 10 >"$TMP/k.out" 2>&1
[ $? -eq 1 ] && grep -q "not your job" "$TMP/k.out"
ok $? "another user cannot cancel the job"
$AS_NOBODY "$BQ" -l 10 >/dev/null 2>&1
[ $? -eq 1 ]
ok $? "nor see its details"
$AS_NOBODY "$BQ" -a | grep -q "^ *10 "
ok $? "but lists it with everyone's jobs"
wait_state 10 running
ok $? "and it is still running"
mkdir "$TMP/nobody" && chown nobody:nogroup "$TMP/nobody"
printf '#!/bin/sh\nid -u\n' >"$TMP/nobody/whoami.sh"
(cd "$TMP/nobody" && $AS_NOBODY "$BSUB" -n 1 -t 10s whoami.sh) | grep -q submitted &&
	wait_state 11 done && grep -q "^65534$" "$TMP/nobody/bsub-11.out"
ok $? "a job runs as the user who submitted it, in its directory"
"$BQ" -l 11 | grep -q "^User: *nobody"
ok $? "and is listed as that user's"

# Restart, clean: the running job (10) is found again; a queued one keeps
# its guarantee.
"$BSUB" -n 4 -t 1:00 sleep.sh 1 >/dev/null	# 12 waits for 10
g10=$(jfield 12 start_us)
stop_daemon TERM
start_daemon --nodes 4 --policy conservative --kill-grace 1
ok $? "the daemon starts again after a clean stop"
"$BQ" -l 10 | grep -q "^State: *running"
ok $? "the running job is found again"
g10b=$(jfield 12 start_us)
[ -n "$g10b" ] && [ "$g10b" -le "$g10" ]
ok $? "the queued job's guarantee survived ($g10b <= $g10)"

# Restart after kill -9: nothing acknowledged is lost.
"$BSUB" -n 2 -t 30s sleep.sh 1 >/dev/null	# 13
stop_daemon KILL
start_daemon --nodes 4 --policy conservative --kill-grace 1
ok $? "the daemon starts again after kill -9"
"$BQ" -l 13 >/dev/null && "$BQ" -l 12 >/dev/null && "$BQ" -l 10 | grep -q "^State: *running"
ok $? "every acknowledged job is still there, the running one re-found"
"$BKILL" 10 >/dev/null
wait_state 12 done 20 && wait_state 13 done 20
ok $? "after the cancel, the waiting jobs run to the end"

# How a job ends by itself: done for exit 0; exit (LSF's EXIT) for a
# non-zero exit or a signal the daemon did not send (its own, or a user's
# kill -9), with its code or signal in bq -l, JSON and the log.
id_of() { sed -n 's/^Job \([0-9]*\) submitted.*/\1/p'; }
printf '#!/bin/sh\nexit "$1"\n' >code.sh
printf '#!/bin/sh\nkill -SEGV $$\n' >segv.sh
printf '#!/bin/sh\necho $$ >k9.pid\nexec sleep 300\n' >k9.sh
z=$("$BSUB" -n 1 -t 1:00 code.sh 0 | id_of)
x=$("$BSUB" -n 1 -t 1:00 code.sh 3 | id_of)
g=$("$BSUB" -n 1 -t 1:00 segv.sh | id_of)
k=$("$BSUB" -n 1 -t 1:00 k9.sh | id_of)
wait_state "$z" "$ENDED" 10 && wait_state "$x" "$ENDED" 10 && wait_state "$g" "$ENDED" 10
"$BQ" -l "$z" >z.out && grep -q "^State: *done$" z.out && grep -q "^Exit code: *0$" z.out
ok $? "exit 0: done, exit code 0 (job $z: $(sed -n 's/^State: *//p' z.out))"
"$BQ" -l "$x" >x.out && grep -q "^State: *exit$" x.out && grep -q "^Exit code: *3$" x.out &&
	grep -q "^Exit status: *exit code 3$" x.out && ! grep -q "^Signal:" x.out
ok $? "exit 3: exit, with exit code 3 in bq -l (job $x: $(sed -n 's/^State: *//p' x.out))"
"$BQ" -l "$x" --json | grep -q '"state":"exit",.*"exit_code":3,"exit_signal":null,.*"exit_signal_name":null,'
ok $? "and in JSON: state exit, exit_code 3"
"$BQ" -l "$g" >g.out && grep -q "^State: *exit$" g.out && grep -q "^Signal: *SIGSEGV (11)$" g.out &&
	! grep -q "^Exit code:" g.out
ok $? "a job that kills itself with SIGSEGV: exit, Signal: SIGSEGV (11) (job $g: $(sed -n 's/^\(State\|Signal\): *//p' g.out | tr '\n' ' '))"
"$BQ" -l "$g" --json | grep -q '"state":"exit",.*"exit_code":null,"exit_signal":11,.*"exit_signal_name":"SIGSEGV",'
ok $? "and in JSON: exit_signal 11, exit_signal_name SIGSEGV"
wait_state "$k" running 10 && wait_file k9.pid && kill -9 "$(cat k9.pid)" && wait_state "$k" "$ENDED" 10 &&
	"$BQ" -l "$k" >k.out && grep -q "^State: *exit$" k.out && grep -q "^Signal: *SIGKILL (9)$" k.out
ok $? "a user's kill -9 of the job's process: exit, Signal: SIGKILL (9) (job $k: $(sed -n 's/^State: *//p' k.out))"
"$BQ" -a >list.out && grep -q "^ *$x .* exit " list.out && grep -q "^ *$z .* done " list.out
ok $? "bq lists exit apart from done"
grep -q "job $z: ended: done, exit 0, ran " daemon.log && grep -q "job $x: ended: exit, exit 3, ran " daemon.log &&
	grep -q "job $g: ended: exit, killed by signal 11, ran " daemon.log &&
	grep -q "job $k: ended: exit, killed by signal 9, ran " daemon.log
ok $? "the log says how each ended"
"$BQ" -l 6 | grep -q "^State: *killed$" && "$BQ" -l 6 | grep -q "^Signal: *SIGKILL (9)$" &&
	"$BQ" -l 7 | grep -q "^State: *cancelled$"
ok $? "the daemon's own kills stay apart: killed at the limit, cancelled by bkill"

# A job that exits 3 while the daemon is down (killed with -9): the
# restart reads its supervisor's record and ends it as exit.
printf '#!/bin/sh\necho up >r.up\nwhile [ ! -e r.go ]; do sleep 0.1; done\nexit 3\n' >r.sh
r=$("$BSUB" -n 1 -t 1:00 r.sh | id_of)
wait_state "$r" running 10 && wait_file r.up
stop_daemon KILL
touch r.go
wait_file "$TMP/spool/status/$r.status" 10
ok $? "job $r exits 3 while the daemon is down; its supervisor records it"
start_daemon --nodes 4 --policy conservative --kill-grace 1
"$BQ" -l "$r" >r.out && grep -q "^State: *exit$" r.out && grep -q "^Exit code: *3$" r.out &&
	grep -q "job $r: ended while the daemon was down: exit, exit 3, ran " daemon.log
ok $? "after the restart it is exit, exit code 3, and the log says so (job $r: $(sed -n 's/^State: *//p' r.out))"
done_testing
