# A job whose supervisor is killed (not by the daemon): the job ends as
# failed, and the processes it left running are killed, whether the daemon
# sees the supervisor die or finds it gone after a restart.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

# The job: its leader and a child, each recording its pid.
printf '#!/bin/sh\necho $$ >"$1.leader"\nsleep 300 &\necho $! >"$1.child"\nwait\n' >two.sh

# gone PIDFILE...: every recorded process has ended (within 5 s).
gone() {
	i=0
	while [ $i -lt 50 ]; do
		alive=0
		for f in "$@"; do
			[ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && alive=1
		done
		[ $alive -eq 0 ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

start_daemon --nodes 2 --kill-grace 1
"$BSUB" -n 1 -t 1:00 two.sh "$TMP/a" >/dev/null	# job 1
wait_state 1 running && wait_file a.leader && wait_file a.child
sup=$(pgrep -P "$DPID")
[ -n "$sup" ] && [ "$(echo "$sup" | wc -l)" -eq 1 ] && kill -KILL "$sup"
ok $? "job 1 runs (a leader and a child); its supervisor ($sup) is killed"
wait_state 1 failed 10 && "$BQ" -l 1 | grep -q "^Reason: *lost: its supervisor ended without recording"
ok $? "the job ends as failed, and bq -l says why"
gone a.leader a.child
ok $? "the processes it left running are killed"
grep -q "job 1: its supervisor is gone; killed 2 processes it left running" "$TMP/daemon.log"
ok $? "the daemon says so"

# The same while the daemon is down.
"$BSUB" -n 1 -t 1:00 two.sh "$TMP/b" >/dev/null	# job 2
wait_state 2 running && wait_file b.leader && wait_file b.child
sup=$(pgrep -P "$DPID")
stop_daemon KILL
[ -n "$sup" ] && kill -0 "$sup" && kill -0 "$(cat b.child)" && kill -KILL "$sup"
ok $? "job 2 runs; the daemon is killed, then the supervisor ($sup)"
kill -0 "$(cat b.child)"
ok $? "the job's processes are still there"
start_daemon --nodes 2 --kill-grace 1
wait_state 2 failed 10 && "$BQ" -l 2 | grep -q "^Reason: .*\(lost\|supervisor ended without\)"
ok $? "after the restart the job is failed, as lost (or, if its zombie was not reaped, seen to end without a record)"
gone b.leader b.child
ok $? "and the processes it left running are killed"
grep -q "job 2: its supervisor is gone; killed 2 processes" "$TMP/daemon.log"
ok $? "the daemon says so"
"$BSUB" -n 2 -t 10s -o "$TMP/c.out" two.sh "$TMP/c" >/dev/null && wait_state 3 running
ok $? "both nodes are free again: a 2-node job runs"
"$BKILL" 3 >/dev/null && wait_state 3 cancelled 10 && gone c.leader c.child
ok $? "and cancelling it ends all its processes as before"
done_testing
