# A killed job that keeps its nodes past its grace: the plan keeps them too,
# the start it delays is moved later and announced (never silently late),
# and when the job is gone the waiting job starts at once.
#
# "Keeps its nodes" is made certain by stopping the job's supervisor
# (SIGSTOP): the daemon's SIGTERM and hard kill reach the supervisor but are
# not passed on to the job until the test lets it go on (SIGCONT).
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

jfield() {
	"$BQ" -l "$1" --json 2>/dev/null | tr ',' '\n' | sed -n "s/^ *\"$2\": *\([-0-9a-z\"]*\).*/\1/p" | head -1
}
now_us() { echo $(( $(date +%s%N) / 1000 )); }

printf '#!/bin/sh\ntrap "echo TERM" TERM\nwhile :; do sleep 0.1; done\n' >stubborn.sh
printf '#!/bin/sh\nexit 0\n' >quick.sh

id=0
for p in conservative easy; do
	start_daemon --nodes 2 --policy "$p" --kill-grace 1 || { ok 1 "$p: daemon"; continue; }
	a=$((id + 1)); b=$((id + 2)); id=$b
	"$BSUB" -n 2 -t 2s stubborn.sh >/dev/null
	wait_state $a running 5
	sup=$(pgrep -P "$DPID")
	[ -n "$sup" ] && [ "$(echo "$sup" | wc -l)" -eq 1 ] && kill -STOP "$sup"
	ok $? "$p: job $a runs; its supervisor ($sup) is stopped"
	"$BSUB" -n 2 -t 5s quick.sh >/dev/null
	sa=$(jfield $a start_us); g0=$(jfield $b start_us)
	[ -n "$g0" ] && [ "$g0" -le $((sa + 3000000)) ]
	ok $? "$p: job $b is promised job $a's limit + grace at the latest (+$(( (g0 - sa) / 1000 )) ms)"

	# Past the end of the grace, job a still holds the nodes.
	i=0; g1=$g0
	while [ $i -lt 80 ] && [ "$g1" -le "$g0" ]; do
		sleep 0.1; i=$((i + 1)); g1=$(jfield $b start_us)
	done
	# Its hold grows by as long again as it overran its limit (a second
	# here): about limit + grace + 1 s after its start. A start a moment
	# late for its reservation keeps its planned end (the grace is shorter
	# by the delay), so the bound allows 100 ms of that (a loaded machine).
	[ "$(jfield $b state)" = '"queued"' ] && [ "$g1" -gt "$g0" ] &&
		[ "$g1" -ge $((sa + 3900000)) ]
	ok $? "$p: when the grace is up, job $b's start moves later (+$(( (g1 - sa) / 1000 )) ms), it waits"
	grep -q "job $b: guarantee broken: start moved later from [0-9: -]* to [0-9: -]* (a killed job still holds its nodes" \
		"$TMP/daemon.log"
	ok $? "$p: the daemon says so, and why"
	"$BQ" -l $b | grep -q "at the latest (guaranteed)"
	ok $? "$p: bq -l still shows a guaranteed start for job $b"

	cont=$(now_us)
	kill -CONT "$sup"
	wait_state $b done 10 && wait_state $a killed 5
	ok $? "$p: let go, job $a is killed and job $b runs"
	sb=$(jfield $b start_us)
	moves=$(grep -c "job $b: its guaranteed start moved later" "$TMP/daemon.log")
	[ "$sb" -ge "$cont" ] && { [ "$sb" -le "$g1" ] || [ "$moves" -gt 1 ]; }
	ok $? "$p: job $b started once the nodes were free, by its new promise ($((sb - cont)) us after)"
	"$BQ" -l $a | grep -q "^Exit status: .*signal 9"
	ok $? "$p: job $a ended by SIGKILL (the daemon's terminate and kill, held at the supervisor, went on)"
	stop_daemon
done
done_testing
