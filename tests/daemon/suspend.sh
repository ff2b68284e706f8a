#!/bin/sh
# Suspending a running job (bstop(1)): bstop holds queued jobs only, and
# for a running one names the command that suspends it (bkill -s STOP).
# A stopped job keeps its nodes, the plan does not move, and its limit and
# a cancel still end it: SIGTERM is followed by SIGCONT, so its TERM
# handler runs then, not only at the KILL after the grace.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
BSTOP="$BF_BUILD/bstop"
chmod 755 "$TMP"
# A job that says TERM in a file and leaves when it gets one.
# It makes FILE.ready once its trap is set.
printf '#!/bin/sh\ntrap "echo TERM >>\\"$1\\"; exit 3" TERM\n: >"$1.ready"\nwhile :; do sleep 0.1; done\n' >trap.sh
chmod 644 trap.sh
guarantee() { "$BQ" -l "$1" --json | sed -n 's/.*"start_us":\([0-9]*\).*"start_kind":"guaranteed".*/\1/p'; }
# stopped FILE: every process of the job whose trap writes FILE is stopped.
stopped() {
	pids=$(pgrep -f "trap.sh $TMP/$1") || return 1
	for p in $pids; do
		grep -q '^[^)]*) T' "/proc/$p/stat" || return 1
	done
}
wait_ready() {
	k=0
	while [ $k -lt 100 ] && [ ! -e "$1.ready" ]; do sleep 0.1; k=$((k + 1)); done
}
wait_stopped() {
	k=0
	while [ $k -lt 50 ] && ! stopped "$1"; do sleep 0.1; k=$((k + 1)); done
	stopped "$1"
}
said_term() {
	k=0
	while [ $k -lt 100 ] && ! grep -q TERM "$1" 2>/dev/null; do sleep 0.1; k=$((k + 1)); done
	grep -q TERM "$1"
}

# A grace far longer than the test: only the TERM can end these jobs in time.
start_daemon --nodes 2 --policy conservative --kill-grace 10m || exit 1
"$BSUB" -n 2 -t 1:00 -o /dev/null sh trap.sh "$TMP/a.term" >/dev/null	# 1: runs
"$BSUB" -n 2 -t 1:00 -o /dev/null sh trap.sh "$TMP/b.term" >/dev/null	# 2: after it
wait_state 1 running
g2=$(guarantee 2)

"$BSTOP" 1 >out
[ $? -eq 1 ] && grep -q "^Job 1: not held: it is running, or held already$" out &&
	grep -q "bkill -s STOP 1 .*bkill -s CONT 1" out
ok $? "bstop of a running job: not held, and names the command that suspends it: $(tail -1 out)"
wait_ready a.term
"$BKILL" -s STOP 1 >out && grep -q "^Job 1: signal STOP sent$" out && wait_stopped a.term
ok $? "bkill -s STOP 1: every process of the job is stopped"
"$BQ" -l 1 | grep -q "^State: *running" && [ -n "$g2" ] && [ "$(guarantee 2)" = "$g2" ]
ok $? "suspended, it keeps its nodes and the plan does not move (job 2 still at $g2)"
"$BKILL" -s CONT 1 >/dev/null && sleep 0.3 && ! stopped a.term
ok $? "bkill -s CONT 1 resumes it"
"$BKILL" -s STOP 1 >/dev/null && wait_stopped a.term && "$BKILL" 1 >out &&
	said_term a.term && wait_state 1 cancelled 10
ok $? "cancelled while stopped: its TERM handler runs at once (SIGCONT follows SIGTERM)"

# At the limit: job 3 (5 s), stopped, still ends at its limit.
wait_state 2 running
"$BKILL" 2 >/dev/null
wait_state 2 cancelled 10
"$BSUB" -n 1 -t 5s -o /dev/null sh trap.sh "$TMP/c.term" >/dev/null	# 3
wait_state 3 running
wait_ready c.term
"$BKILL" -s STOP 3 >/dev/null && wait_stopped c.term && said_term c.term &&
	wait_state 3 killed 10 && ! pgrep -f "trap.sh $TMP/c.term" >/dev/null
ok $? "stopped, a job still ends at its limit, its TERM handler run (not at the KILL after 10 minutes)"
stop_daemon
done_testing
