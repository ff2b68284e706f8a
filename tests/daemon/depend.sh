#!/bin/sh
# Dependencies (bsub -w, LSF's syntax): a 3-step chain submitted at once has
# a guaranteed start for every step under conservative (each after the end
# its predecessor can have: guarantee + limit + grace), and an early end of
# step 1 moves steps 2 and 3 earlier; bq -l shows the condition and what is
# unmet; names, ||, !, exit(), ended(), started(); a condition that can
# never be met is refused at submission, and one that becomes so cancels
# the job, saying why, and its own dependents after it; syntax errors say
# their column, unknown jobs and names are refused; #BSUB -w; a kill -9 and
# a restart keep the chain and its guarantees; EASY predicts the chain.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP"
# A job that runs until its file appears (or 300 s).
cat >wait.sh <<'EOF'
#!/bin/sh
i=0
while [ ! -e "$1" ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done
exit "${2:-0}"
EOF
chmod 755 wait.sh
sub() { "$BSUB" -o /dev/null "$@" | sed -n 's/^Job \([0-9]*\) .*/\1/p'; }
# guarantee ID: the guaranteed start (µs), empty if none.
guarantee() { "$BQ" -l "$1" --json | sed -n 's/.*"start_us":\([0-9]*\).*"start_kind":"guaranteed".*/\1/p'; }
field() { "$BQ" -l "$1" | sed -n "s/^$2: *//p"; }

start_daemon --nodes 4 --policy conservative --kill-grace 10 || exit 1

# ---- a chain ----
a=$(sub -n 4 -t 10:00 -J prep ./wait.sh "$TMP/a.go")
b=$(sub -n 4 -t 20:00 -J solve -w "done($a)" ./wait.sh "$TMP/b.go")
c=$(sub -n 2 -t 5:00 -J post -w 'done(solve)' ./wait.sh "$TMP/c.go")
wait_state "$a" running
ga=$("$BQ" -l "$a" --json | sed -n 's/.*"start_us":\([0-9]*\).*/\1/p')
gb=$(guarantee "$b")
gc=$(guarantee "$c")
# (-t 10:00 is ten hours, as LSF reads it; the start bq shows is the
# job's, a moment after the plan's)
near() { [ "$1" -ge $(($2 - 1000000)) ] && [ "$1" -le $(($2 + 1000000)) ]; }
[ -n "$gb" ] && [ -n "$gc" ] && near "$gb" $((ga + 36010000000)) && [ "$gc" -eq $((gb + 72010000000)) ]
ok $? "a 3-step chain: each step guaranteed its predecessor's latest end (limit + grace) (a $ga, b $gb, c $gc)"
[ "$(job_state "$b")" = queued ] && field "$b" Dependency | grep -q "^done($a)\$" &&
	field "$b" "Pending reason" | grep -q "^waiting for its dependency: done($a) \[waiting\]\$"
ok $? "bq -l shows the condition and that it waits ($(field "$b" "Pending reason"))"
field "$c" Dependency | grep -q '^done(solve)$'
ok $? "a name is kept as written (done(solve))"
"$BQ" -l "$c" --json | grep -q '"depend":"done(solve)"'
ok $? "and in JSON"
# A job with no dependency may use the free nodes before them, never delaying them.
touch a.go
wait_state "$b" running
gc2=$(guarantee "$c")
[ -n "$gc2" ] && [ "$gc2" -lt "$gc" ]
ok $? "step 1 ended early: step 2 starts, step 3's guarantee moves earlier ($gc -> $gc2)"
grep -q "job $b: its dependency is met" daemon.log
ok $? "the log says when a dependency is met"
touch b.go
wait_state "$c" running
touch c.go
wait_state "$c" done
ok $? "step 3 runs and ends"
grep -q "guarantee broken" daemon.log
[ $? -ne 0 ]
ok $? "no guarantee of the chain was broken"

# ---- refusals ----
"$BSUB" -n 1 -w "done($a" ./wait.sh x >out 2>&1
[ $? -ne 0 ] && grep -q "bsub: -w: at column [0-9]*: expected ')'" out
ok $? "a syntax error is refused with its column ($(cat out))"
"$BSUB" -n 1 -t 1:00 -w "ended($a) && done(999999)" ./wait.sh x >out 2>&1
[ $? -ne 0 ] && grep -q "at column $((${#a} + 12)): there is no job 999999" out
ok $? "an unknown job is refused, at the column of its condition ($(cat out))"
"$BSUB" -n 1 -t 1:00 -w "ended(nosuchname)" ./wait.sh x >out 2>&1
[ $? -ne 0 ] && grep -q "no job named nosuchname" out
ok $? "an unknown name is refused ($(cat out))"
# Job states are public, names private: another user may wait on root's
# job by its id, not by its name (prep is root's).
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
(cd / && $AS_NOBODY "$BSUB" -n 1 -t 1:00 -cwd /tmp -o /dev/null -w "ended($a)" sleep 1) >out 2>&1
[ $? -eq 0 ] && grep -q "^Job [0-9]* submitted" out
ok $? "another user's -w may name root's job by its id ($(head -1 out))"
(cd / && $AS_NOBODY "$BSUB" -n 1 -t 1:00 -cwd /tmp -o /dev/null -w "ended(prep)" sleep 1) >out 2>&1
[ $? -ne 0 ] && grep -q "no job named prep" out
ok $? "  but not by its name: names are the submitter's own ($(cat out))"
"$BSUB" -n 1 -w "post_done($a)" ./wait.sh x >out 2>&1
[ $? -ne 0 ] && grep -q "not supported" out
ok $? "LSF's conditions backfilld has not are refused as such ($(cat out))"
f=$(sub -n 1 -t 1:00 ./wait.sh "$TMP/f.go" 3)
touch f.go
wait_state "$f" exit
"$BSUB" -n 1 -t 1:00 -w "done($f)" ./wait.sh x >out 2>&1
[ $? -ne 0 ] && grep -q "can never be met" out
ok $? "a condition already false is refused at submission ($(cat out))"
e=$(sub -n 1 -t 1:00 -w "exit($f,3) && exit($f) && ended($f) && !done($f)" ./wait.sh "$TMP/e.go")
[ -n "$e" ] && wait_state "$e" running
ok $? "exit(ID,3), exit(), ended() and !done() of a job that exited 3 are met at once"
touch e.go

# ---- never met later: cancelled, and its dependents ----
g=$(sub -n 1 -t 1:00 ./wait.sh "$TMP/g.go" 1)
h=$(sub -n 1 -t 1:00 -w "done($g)" ./wait.sh "$TMP/h.go")
i2=$(sub -n 1 -t 1:00 -w "done($h)" ./wait.sh "$TMP/i.go")
k=$(sub -n 1 -t 1:00 -w "exit($g) || done($h)" ./wait.sh "$TMP/k.go")
touch g.go
wait_state "$h" cancelled && wait_state "$i2" cancelled
ok $? "its predecessor exited 1: done() can never be met, the job is cancelled, and the job after it ($(job_state "$h") $(job_state "$i2"))"
field "$h" Reason | grep -q "its dependency can never be met: done($g) \[never\]"
ok $? "the reason says why ($(field "$h" Reason))"
wait_state "$k" running
ok $? "exit(g) || done(h) is met by g's exit"
touch k.go

# ---- started(), #BSUB -w ----
m=$(sub -n 2 -t 1:00 ./wait.sh "$TMP/m.go")
cat >after.sh <<EOF
#!/bin/sh
#BSUB -w "started($m)"
exit 0
EOF
chmod 755 after.sh
p=$(sub -n 1 -t 1:00 ./after.sh)
wait_state "$p" "running\|done"
ok $? "#BSUB -w started(): it starts once its predecessor has"
touch m.go

# ---- a restart keeps the chain and its guarantees ----
q=$(sub -n 4 -t 10:00 ./wait.sh "$TMP/q.go")
r=$(sub -n 4 -t 10:00 -w "done($q)" ./wait.sh "$TMP/r.go")
s=$(sub -n 4 -t 10:00 -w "ended($r)" ./wait.sh "$TMP/s.go")
wait_state "$q" running
gr=$(guarantee "$r")
gs=$(guarantee "$s")
stop_daemon KILL
start_daemon --nodes 4 --policy conservative --kill-grace 10 || exit 1
[ "$(guarantee "$r")" = "$gr" ] && [ "$(guarantee "$s")" = "$gs" ] && [ -n "$gs" ] &&
	field "$s" "Pending reason" | grep -q "waiting for its dependency"
ok $? "after a kill -9, every step keeps its guarantee and its wait ($gr $gs)"
"$BF_BUILD/bctl" top "$s" >out 2>&1
[ $? -eq 1 ] && grep -q "not moved: .*waits for jobs it depends on" out
ok $? "bctl top of a job that waits on others: not moved, saying why"
"$BF_BUILD/bctl" limit "$q" 20:00 >/dev/null
wait_log "job $s: .*a job it depends on was moved later"
ok $? "a predecessor moved later moves the chain, and the log says why (a job it depends on was moved later)"
touch q.go
wait_state "$r" running
touch r.go
wait_state "$s" running
ok $? "and the chain goes on after it"
touch s.go
wait_state "$s" done
stop_daemon

# ---- EASY: a prediction for each step ----
rm -f "$TMP/state.db"* && rm -rf "$TMP/spool"
start_daemon --nodes 4 --policy easy || exit 1
u=$(sub -n 3 -t 10:00 ./wait.sh "$TMP/u.go")
v=$(sub -n 4 -t 10:00 -w "done($u)" ./wait.sh "$TMP/v.go")
w=$(sub -n 1 -t 1:00 ./wait.sh "$TMP/w.go")
wait_state "$u" running
"$BQ" -l "$v" --json | grep -q '"start_kind":"predicted"'
ok $? "EASY: the waiting step has a predicted start"
wait_state "$w" running
ok $? "EASY: a job behind it starts on the free node: the waiting job holds nothing up"
touch w.go u.go
wait_state "$v" running
ok $? "EASY: released when its predecessor is done"
touch v.go
wait_state "$v" "$ENDED"
stop_daemon
done_testing
