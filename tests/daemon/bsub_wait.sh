#!/bin/sh
# bsub -K (bsub(1), WAITING): it waits for the job's end, says LSF's
# <<Waiting for dispatch ...>>, <<Starting on NODE>> and <<Job is
# finished>>, and exits with the job's code: 3 for exit 3, 143 for
# SIGTERM, 126 for a job cancelled while pending, 143 for one killed at
# its limit (even one that caught the SIGTERM and exited 0). Ctrl-C
# cancels the job and exits 130 (with the daemon down it says the job may
# still run); an ignored SIGINT stays ignored. The daemon killed -9 and
# restarted meanwhile: bsub says so and still reports the end. A record
# pruned before bsub saw the end: 125. The jobs are nobody's, submitted
# and waited for as nobody.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP"
mkdir nb && chown nobody:nogroup nb
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
# (the default SIGINT: a shell without job control starts "cmd &" with
# SIGINT ignored, and Ctrl-C is tried on these)
INT_DEFAULT="env --default-signal=INT"

# k NAME BSUB-ARGS...: bsub -K as nobody, in nb/, in the foreground;
# NAME.out, NAME.err, and the exit status in NAME.rc.
k() {
	_n=$1
	shift
	(cd nb && $AS_NOBODY "$BSUB" -K "$@" >"$TMP/$_n.out" 2>"$TMP/$_n.err")
	echo $? >"$_n.rc"
}
# kbg NAME BSUB-ARGS...: the same in the background; its pid in $kpid.
kbg() {
	_n=$1
	shift
	(cd nb && exec $AS_NOBODY $INT_DEFAULT "$BSUB" -K "$@" >"$TMP/$_n.out" 2>"$TMP/$_n.err") &
	kpid=$!
}
# reap PID NAME: until the background bsub PID has ended (30 s at most,
# then it is killed: a bsub that does not end is a failure); its status
# in NAME.rc.
reap() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	kill -0 "$1" 2>/dev/null && kill -KILL "$1"
	wait "$1"
	echo $? >"$2.rc"
}
# said NAME PATTERN [SECONDS]: until NAME.err has a line that matches
# (a bsub just started may not have made the file yet).
said() {
	i=0
	while [ $i -lt $((${3:-10} * 10)) ] && ! grep -q "$2" "$1.err" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "$2" "$1.err" 2>/dev/null
}
rc() { cat "$1.rc"; }
# id NAME: the job id bsub printed.
id() { sed -n 's/^Job \([0-9]*\) submitted.*/\1/p' "$1.out"; }
# lines NAME: the <<...>> lines of NAME.err, joined by '|'.
lines() { grep '^<<' "$1.err" | tr '\n' '|'; }

start_daemon --nodes 4 --kill-grace 1 || exit 1

k ok -n 1 -t 1m true
[ "$(rc ok)" -eq 0 ] && grep -q "^Job 1 submitted: " ok.out &&
	[ "$(lines ok)" = "<<Waiting for dispatch ...>>|<<Starting on node001>>|<<Job is finished>>|" ]
ok $? "a job that exits 0: exit 0, the submission line, then LSF's three lines ($(lines ok))"
"$BQ" -l 1 | grep -q "^State: *done"
ok $? "  bsub returned once the job had ended"

k three -n 2 -t 1m sh -c 'exit 3'
[ "$(rc three)" -eq 3 ] && grep -q "^<<Starting on node\[001-002\]>>$" three.err &&
	grep -q "^<<Job is finished>>$" three.err
ok $? "a job that exits 3: exit 3 ($(rc three)); its nodes in <<Starting on>>"

k term -n 1 -t 1m sh -c 'kill -TERM $$'
[ "$(rc term)" -eq 143 ] && grep -q "^<<Job is finished>>$" term.err
ok $? "a job that kills itself with SIGTERM: 128+15 = 143 ($(rc term))"

printf '#!/bin/sh\n#BSUB -K\n#BSUB -n 1 -W 1\nexit 5\n' >nb/k.sh
(cd nb && $AS_NOBODY "$BSUB" k.sh >"$TMP/script.out" 2>"$TMP/script.err")
echo $? >script.rc
[ "$(rc script)" -eq 5 ] && grep -q "^<<Job is finished>>$" script.err &&
	! grep -q "warning" script.err
ok $? "#BSUB -K in the script waits too, without a warning ($(rc script))"

k limit -n 1 -t 1s sleep 60
[ "$(rc limit)" -eq 143 ] && grep -q "^<<Job was killed at its time limit>>$" limit.err
ok $? "killed at its time limit: the signal's code, 143 ($(rc limit)): $(lines limit)"

k caught -n 1 -t 1s sh -c 'trap "exit 0" TERM; while :; do sleep 0.1; done'
[ "$(rc caught)" -eq 143 ] && "$BQ" -l "$(id caught)" | grep -q "^State: *killed" &&
	"$BQ" -l "$(id caught)" | grep -q "exit code 0"
ok $? "killed at its limit but exited 0 (caught SIGTERM): still 143, never 0 ($(rc caught))"

# Pending: a job on all four nodes holds the others back.
"$BSUB" -n 4 -t 1m -o /dev/null sleep 300 >blocker.out
blocker=$(sed -n 's/^Job \([0-9]*\) .*/\1/p' blocker.out)
wait_state "$blocker" running
kbg pend -n 1 -t 1m true
said pend "^<<Waiting for dispatch" && wait_state "$(id pend)" queued 5 &&
	$AS_NOBODY "$BKILL" "$(id pend)" >/dev/null
reap $kpid pend
[ "$(rc pend)" -eq 126 ] && [ "$(lines pend)" = "<<Waiting for dispatch ...>>|<<Terminated while pending>>|" ]
ok $? "cancelled while pending (bkill from elsewhere): LSF's 126 ($(rc pend)), <<Terminated while pending>>"

kbg intq -n 1 -t 1m true
said intq "^<<Waiting for dispatch" && wait_state "$(id intq)" queued 5 && kill -INT $kpid
reap $kpid intq
[ "$(rc intq)" -eq 130 ] && grep -q "^bsub: job $(id intq) cancelled$" intq.err &&
	wait_state "$(id intq)" cancelled 5
ok $? "Ctrl-C while it is pending: the job is cancelled, bsub exits 130 ($(rc intq))"
"$BKILL" "$blocker" >/dev/null

kbg intr -n 1 -t 1m sleep 300
said intr "^<<Starting on" && kill -INT $kpid
reap $kpid intr
[ "$(rc intr)" -eq 130 ] && grep -q "^bsub: interrupted: cancelling job $(id intr)$" intr.err &&
	wait_state "$(id intr)" cancelled 10
ok $? "Ctrl-C while it runs: the job is cancelled (killed), bsub exits 130 ($(rc intr))"

# "bsub -K ... &" in a script: SIGINT ignored stays ignored.
(cd nb && exec $AS_NOBODY "$BSUB" -K -n 1 -t 1m sleep 300 >"$TMP/ign.out" 2>"$TMP/ign.err") &
kpid=$!
said ign "^<<Starting on" && kill -INT $kpid && sleep 0.5 && kill -0 $kpid &&
	"$BQ" -l "$(id ign)" | grep -q "^State: *running"
ok $? "a bsub -K whose SIGINT is ignored (started with & by sh) ignores it: still waiting"
"$BKILL" "$(id ign)" >/dev/null
reap $kpid ign
[ "$(rc ign)" -eq 143 ] && grep -q "^<<Job was cancelled while running>>$" ign.err
ok $? "  cancelled while running by bkill: 143, and says so ($(rc ign))"

# The daemon dies (kill -9) while bsub waits; the job ends meanwhile.
kbg restart -n 1 -t 1m sh -c 'while [ ! -e go ]; do sleep 0.1; done; exit 7'
rpid=$kpid
kbg down -n 1 -t 1m sleep 300
said restart "^<<Starting on" && said down "^<<Starting on"
stop_daemon KILL
# Killed mid-poll, bsub's reason is "Connection reset by peer"; between
# polls, "cannot reach backfilld". Either way it says it waits on.
said restart "^bsub: .*; still waiting for job $(id restart) "
ok $? "the daemon killed -9: bsub says once that it lost it, and waits on"
said down "^bsub: .*; still waiting for job $(id down) " && kill -INT $kpid
reap $kpid down
[ "$(rc down)" -eq 130 ] &&
	grep -q "^bsub: job $(id down) was not cancelled: .*; it may still run (bkill $(id down))$" down.err
ok $? "Ctrl-C with the daemon down: says the job may still run, exits 130 ($(rc down))"
touch nb/go
start_daemon --nodes 4 --kill-grace 1 || exit 1
reap $rpid restart
[ "$(rc restart)" -eq 7 ] && grep -q "^bsub: backfilld answers again" restart.err &&
	[ "$(grep -c "; still waiting for job" restart.err)" -eq 1 ] && grep -q "^<<Job is finished>>$" restart.err
ok $? "restarted: bsub reports the job's end, exit 7 ($(rc restart))"
"$BKILL" "$(id down)" >/dev/null

# The record is gone before bsub sees the end (keep_ended): 125.
stop_daemon
printf 'nodes: 4\nkeep_ended: 1s\nkill_grace: 1s\n' >prune.yaml
start_daemon --config "$TMP/prune.yaml" || exit 1
kbg pruned -n 1 -t 1m sh -c 'while [ ! -e go2 ]; do sleep 0.1; done'
said pruned "^<<Starting on" && kill -STOP $kpid
touch nb/go2
i=0
while [ $i -lt 100 ] && "$BQ" -l "$(id pruned)" >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
kill -CONT $kpid
reap $kpid pruned
[ "$(rc pruned)" -eq 125 ] && grep -q "no longer knows job $(id pruned)" pruned.err
ok $? "a record removed before bsub saw the end: said, exit 125 ($(rc pruned))"

"$BSUB" -K </dev/null >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "bsub -K without -n: a usage error, nothing submitted"
done_testing
