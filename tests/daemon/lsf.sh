#!/bin/sh
# What LSF users type (bsub(1)): a command line instead of a script, -o
# with %J, #BSUB options backfilld lacks as warnings, no mail, and the
# LSB_* variables that MPI launchers read.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

start_daemon --nodes 4 --kill-grace 1 || exit 1

"$BSUB" -n 2 -t 1:00 -o 'out.%J' printf '%s|' "it's" '$HOME' >sub 2>"$TMP/err"
[ $? -eq 0 ] && grep -q "^Job 1 submitted" sub
ok $? "bsub -n 2 -t 1:00 printf ...: a command line is submitted as job 1"
wait_state 1 done
[ "$(cat out.1)" = "it's|\$HOME|" ]
ok $? "it ran those words exactly (no shell expansion), its output in out.%J = out.1"
"$BQ" -l 1 | grep -q "^Name: *printf %s| it's \$HOME$"
ok $? "its default name is the command line"

printf '#!/bin/sh\necho "$LSB_JOBID|$LSB_JOBNAME|$LSB_HOSTS|$LSB_MCPU_HOSTS|$LSB_DJOB_NUMPROC"\ncat "$LSB_DJOB_HOSTFILE"\n' >env.sh
LSB_JOBID=forged "$BSUB" -n 2 -t 1:00 -J mpi -o env.out env.sh >/dev/null
wait_state 2 done
[ "$(head -1 env.out)" = "2|mpi|node001 node002|node001 1 node002 1|2" ] &&
	[ "$(tail -n +2 env.out | tr '\n' ' ')" = "node001 node002 " ]
ok $? "LSB_JOBID, LSB_JOBNAME, LSB_HOSTS, LSB_MCPU_HOSTS, LSB_DJOB_NUMPROC, LSB_DJOB_HOSTFILE (a forged LSB_JOBID replaced)"

printf '#!/bin/sh\n#BSUB -q normal\n#BSUB -x\n#SBATCH -N 2\n#BSUB -n 1 -W 1\necho ran\n' >lsf.sh
"$BSUB" -o lsf.out lsf.sh >sub 2>"$TMP/err"
[ $? -eq 0 ] && grep -q "^bsub: warning: lsf.sh:2: #BSUB -q 'normal' is not an option" "$TMP/err" &&
	grep -q "^bsub: warning: lsf.sh:3: #BSUB -x is not an option" "$TMP/err" &&
	grep -q "^bsub: warning: lsf.sh:4: #SBATCH lines are not read" "$TMP/err"
ok $? "unknown #BSUB options and #SBATCH lines: warnings naming the line; the job is submitted"
wait_state 3 done && grep -q "^ran$" lsf.out
ok $? "and it runs"

"$BSUB" -n 1 -t 1 -B env.sh >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "backfilld sends no mail" "$TMP/err"
ok $? "bsub -B: refused with a clear message (exit 2)"
printf '#!/bin/sh\n#BSUB -n 1 -W 1\n#BSUB -N\necho ran\n' >mail.sh
"$BSUB" mail.sh >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "mail.sh:3: .*-N: backfilld sends no mail" "$TMP/err"
ok $? "#BSUB -N in a script: refused the same way, naming the line: $(cat "$TMP/err")"
"$BSUB" -n 1 -t 1 ./missing.sh >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "cannot read the script ./missing.sh" "$TMP/err"
ok $? "a missing ./script is still a script that cannot be read, not a command"

# bkill 0, bkill -u, bq -u, bq -w.
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
chmod 755 "$TMP"
printf '#!/bin/sh\nsleep 300\n' >long.sh
chmod 644 long.sh
"$BSUB" -n 1 -t 1:00 -J a-rather-long-job-name-of-thirty long.sh >/dev/null	# job 4
"$BSUB" -n 1 -t 1:00 long.sh >/dev/null						# job 5
(cd / && $AS_NOBODY "$BSUB" -n 1 -t 1:00 -cwd /tmp sleep 300 >/dev/null)	# job 6, nobody's
wait_state 6 "running\|queued"
"$BQ" -u nobody >out
[ "$(grep -c '^ *[0-9]' out)" -eq 1 ] && grep -q "^ *6 *nobody " out
ok $? "bq -u nobody: only nobody's job"
"$BQ" -u all | grep -q "^ *6 " && "$BQ" -u all | grep -q "^ *5 "
ok $? "bq -u all: everyone's"
"$BQ" -a | grep -q "a-rather-lon+ " && "$BQ" -a -w | grep -q "a-rather-long-job-name-of-thirty"
ok $? "bq -w: names are not cut"
$AS_NOBODY "$BKILL" -u root 4 >out 2>&1
[ $? -eq 1 ] && grep -qi "job 4\(:\| belongs to another user\)" out && ! grep -q "^Job 4: cancelled" out
ok $? "bkill -u root 4 by nobody: refused (not an admin): $(cat out)"
"$BKILL" -u nobody 4 >out 2>&1
[ $? -eq 1 ] && grep -q "^Job 4: not nobody's (-u nobody); not cancelled" out &&
	"$BQ" -l 4 | grep -q "^State: *\(running\|queued\)"
ok $? "bkill -u nobody 4 (root): job 4 is root's, so it is left: $(cat out)"
"$BKILL" -u no-such-user-here 0 >out 2>&1
[ $? -eq 2 ] && grep -q "no user 'no-such-user-here'" out
ok $? "bkill -u with an unknown user: usage error"
# bkill -s: a signal to the running job, which goes on (a trap in it).
printf '#!/bin/sh\ntrap "echo got USR1 >>trap.out" USR1\nwhile :; do sleep 0.1; done\n' >trap.sh
chmod 644 trap.sh
"$BSUB" -n 1 -t 1:00 -o /dev/null trap.sh >/dev/null		# job 7
wait_state 7 running && sleep 0.5
"$BKILL" -s USR1 7 >out
[ $? -eq 0 ] && grep -q "^Job 7: signal USR1 sent$" out
ok $? "bkill -s USR1 7: sent"
i=0; while [ $i -lt 50 ] && ! grep -q "got USR1" trap.out 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
grep -q "got USR1" trap.out && "$BQ" -l 7 | grep -q "^State: *running"
ok $? "the job caught it and runs on"
"$BSUB" -n 4 -t 1:00 -o /dev/null long.sh >/dev/null		# job 8: waits
"$BKILL" -s 10 8 >out
[ $? -eq 1 ] && grep -q "^Job 8: not running" out
ok $? "bkill -s to a queued job: not running (exit 1)"
"$BKILL" -u root >out
[ $? -eq 0 ] && [ "$(cat out)" = "Job 8: cancelled" ] && "$BQ" -l 7 | grep -q "^State: *running" &&
	"$BQ" -l 4 | grep -q "^State: *running"
ok $? "bkill -u root alone: root's most recently submitted unfinished job only, as LSF ($(cat out))"
"$BKILL" -s BOGUS 7 >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "bkill -s BOGUS: usage error"
$AS_NOBODY "$BKILL" -s KILL 7 >out
[ $? -eq 1 ] && grep -q "^Job 7: " out && "$BQ" -l 7 | grep -q "^State: *running"
ok $? "another user's -s: refused, the job runs on"
"$BKILL" 0 >out
[ $? -eq 0 ] && grep -q "^Job 4: cancelled" out && grep -q "^Job 5: cancelled" out && ! grep -q "Job 6" out
ok $? "bkill 0: every unfinished job of mine, not nobody's"
# (A running job cancelled is unfinished until its processes are gone.)
wait_state 4 cancelled && wait_state 5 cancelled
"$BKILL" 0 >out
[ $? -eq 0 ] && grep -q "^No unfinished jobs of yours to cancel" out
ok $? "bkill 0 again: nothing left, said so"
"$BKILL" -u nobody 0 >out
grep -q "^Job 6: cancelled" out
ok $? "bkill -u nobody 0 (root): nobody's job"

# The same commands as an ordinary user, on their own jobs.
(cd / && $AS_NOBODY "$BSUB" -n 1 -t 1:00 -J nobodys-rather-long-job-name -cwd /tmp sleep 300 >/dev/null)	# job 9
wait_state 9 running
$AS_NOBODY "$BQ" 9 >out && grep -q "^ *9 *nobody " out
ok $? "nobody: bq 9 shows its job"
$AS_NOBODY "$BQ" -u nobody -w >out && grep -q "nobodys-rather-long-job-name" out
ok $? "nobody: bq -u nobody -w, the whole name"
$AS_NOBODY "$BKILL" -s CONT 9 >out && grep -q "^Job 9: signal CONT sent$" out
ok $? "nobody: bkill -s CONT 9 on its own job"
$AS_NOBODY "$BKILL" 0 >out && [ "$(cat out)" = "Job 9: cancelled" ] && wait_state 9 cancelled
ok $? "nobody: bkill 0 cancels its own job, and only it"

id=$("$BSUB" -n 1 -t 1:00 -o stdin.out <env.sh | sed -n 's/^Job \([0-9]*\) .*/\1/p')
wait_state "$id" done && [ "$(head -1 stdin.out | cut -d'|' -f2)" = STDIN ]
ok $? "a script from standard input: LSB_JOBNAME is STDIN, not a spool path ($(head -1 stdin.out))"

# One word with shell characters is a line for /bin/sh -c, as in LSF;
# a file of that very name stays a script.
id=$("$BSUB" -n 1 -t 1 -o sh.out 'echo hi; echo "$((6 * 7))" | cat' | sed -n 's/^Job \([0-9]*\) .*/\1/p')
[ -n "$id" ] && wait_state "$id" done && [ "$(cat sh.out)" = "$(printf 'hi\n42')" ]
ok $? "bsub -n 1 'echo hi; echo ... | cat': run by /bin/sh -c ($(tr '\n' ' ' <sh.out))"
"$BQ" -l "$id" | grep -q "^Name: *echo hi; echo"
ok $? "its default name is the line"
printf '#!/bin/sh\n#BSUB -n 1 -W 1\necho file\n' >'odd name.sh'
id=$("$BSUB" -o odd.out 'odd name.sh' | sed -n 's/^Job \([0-9]*\) .*/\1/p')
[ -n "$id" ] && wait_state "$id" done && [ "$(cat odd.out)" = file ]
ok $? "a script whose name has a blank is still read as a script, #BSUB lines and all"

# -q and -P on the command line: warned about as in #BSUB lines, ignored.
id=$("$BSUB" -q normal -P proj -n 1 -t 1 -o qp.out echo qp 2>"$TMP/err" | sed -n 's/^Job \([0-9]*\) .*/\1/p')
[ -n "$id" ] && grep -q "^bsub: warning: -q 'normal' is not an option of backfilld's; ignored$" "$TMP/err" &&
	grep -q "^bsub: warning: -P 'proj' is not an option" "$TMP/err" &&
	wait_state "$id" done && [ "$(cat qp.out)" = qp ]
ok $? "bsub -q normal -P proj: warnings naming the options; the job runs"

# Nothing left: the message says whose jobs there were none of.
"$BKILL" -u all 0 >out
[ $? -eq 0 ] && [ "$(cat out)" = "No unfinished jobs of anyone to cancel." ]
ok $? "bkill -u all 0 with nothing left: of anyone ($(cat out))"
"$BKILL" -u nobody 0 >out
[ $? -eq 0 ] && [ "$(cat out)" = "No unfinished jobs of that user to cancel." ]
ok $? "bkill -u nobody 0 with nothing left: of that user ($(cat out))"
# bq --ended N: the listing's window of ended jobs, a count (default 100).
"$BQ" -a >out
[ "$(grep -c '^ *[0-9]' out)" -ge 10 ]
ok $? "bq -a: the ended jobs, none unfinished ($(grep -c '^ *[0-9]' out) lines)"
"$BQ" -a --ended 2 >out
[ "$(grep -c '^ *[0-9]' out)" -eq 2 ] && grep -q "^ *$id " out
ok $? "bq -a --ended 2: the two that ended last, job $id among them"
"$BQ" -a --ended 0 >out
[ "$(grep -c '^ *[0-9]' out)" -eq 0 ]
ok $? "bq -a --ended 0: none ($(head -1 out))"
"$BQ" --ended 1001 >out 2>&1
[ $? -eq 2 ] && grep -q "0 to 1000" out
ok $? "bq --ended 1001: usage error"
# -cwd, -o and -e checked at submission as the user: refused, naming the path.
mkdir -m 755 ro && mkdir -m 700 shut
(cd / && $AS_NOBODY "$BSUB" -n 1 -t 1 -cwd /tmp -o "$TMP/ro/x.out" true >"$TMP/out" 2>&1)
[ $? -eq 2 ] && grep -q -- "^bsub: -o $TMP/ro/x.out: you cannot create a file in $TMP/ro: Permission denied" out
ok $? "nobody: -o in a directory it cannot write: refused ($(cat out))"
(cd / && $AS_NOBODY "$BSUB" -n 1 -t 1 -cwd /tmp -e "$TMP/ro/err.%J" true >"$TMP/out" 2>&1)
[ $? -eq 2 ] && grep -q -- "^bsub: -e $TMP/ro/err.%J: you cannot create a file in $TMP/ro" out
ok $? "nobody: -e with %J: its directory checked ($(cat out))"
(cd / && $AS_NOBODY "$BSUB" -n 1 -t 1 -cwd "$TMP/shut" true >"$TMP/out" 2>&1)
[ $? -eq 2 ] && grep -q -- "^bsub: -cwd: working directory $TMP/shut: you cannot enter it: Permission denied" out
ok $? "nobody: -cwd a directory it cannot enter: refused ($(cat out))"
touch ro/root.out
(cd / && $AS_NOBODY "$BSUB" -n 1 -t 1 -cwd /tmp -o "$TMP/ro/root.out" true >"$TMP/out" 2>&1)
[ $? -eq 2 ] && grep -q -- "^bsub: -o $TMP/ro/root.out: you cannot write it: Permission denied" out
ok $? "nobody: -o an existing file it cannot write: refused ($(cat out))"
"$BSUB" -n 1 -t 1 -o "$TMP/ro/out.%J" true >out 2>&1
[ $? -eq 0 ]
ok $? "root may: the check is the user's own access(2)"
done_testing
