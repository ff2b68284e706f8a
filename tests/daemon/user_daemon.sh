# A daemon an ordinary user runs (make run as that user): it serves that
# user alone, who is its operator: bctl works for them (nodes, drain,
# resume, status, hold, release, top, limit, requeue), so do bsub, bq (also
# -d and --swf), bstop, bresume and bkill; root is refused.
. "$BF_TOP/tests/lib.sh"
BCTL="$BF_BUILD/bctl"; BSTOP="$BF_BUILD/bstop"; BRESUME="$BF_BUILD/bresume"
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
cd "$TMP" || exit 1
chmod 755 "$TMP"
mkdir nb && chown nobody:nogroup nb && cd nb || exit 1
printf '#!/bin/sh\nsleep "$1"\n' >s.sh
chmod 755 s.sh
SOCK="$TMP/nb/u.sock"
export BACKFILLD_SOCKET="$SOCK"
# as: one client as nobody (its environment keeps BACKFILLD_SOCKET).
as() { $AS_NOBODY "$@"; }
# st ID STATE [SECONDS]: wait_state, asked as nobody (root is refused here).
st() {
	i=0
	while [ $i -lt $((${3:-20} * 10)) ]; do
		as "$BQ" -l "$1" 2>/dev/null | grep -q "^State: *\($2\)" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

$AS_NOBODY "$BF_BUILD/backfilld" --foreground --socket "$SOCK" --db "$TMP/nb/u.db" \
	--spool "$TMP/nb/spool" --nodes 2 --policy conservative --kill-grace 1 \
	>"$TMP/daemon.log" 2>&1 &
DPID=$!
# Root may not cancel here: its jobs go as its user's, before the daemon.
trap 'as "$BKILL" 0 >/dev/null 2>&1; for id in 1 2 3; do st "$id" "$ENDED" 5; done
	cleanup_daemon' EXIT
i=0
while ! as "$BQ" >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

as "$BCTL" status >out 2>&1 && grep -q "^policy: *conservative" out
ok $? "bctl status as the daemon's own user: $(head -1 out)"
as "$BSUB" -n 2 -t 1:00 s.sh 300 >/dev/null && as "$BSUB" -n 1 -t 1:00 s.sh 1 >/dev/null &&
	as "$BSUB" -n 1 -t 1:00 s.sh 1 >/dev/null	# 1 runs; 2 and 3 wait
st 1 running
as "$BCTL" drain node002 --reason "fan" >out 2>&1 && as "$BCTL" nodes | grep -q "node002 *drain"
ok $? "bctl drain and bctl nodes: $(cat out)"
as "$BCTL" resume node002 >/dev/null 2>&1 && ! as "$BCTL" nodes | grep -q "drain"
ok $? "bctl resume"
as "$BCTL" top 3 >out 2>&1 && grep -q "^Job 3: first in the queue$" out
ok $? "bctl top 3"
as "$BCTL" hold 2 >/dev/null && as "$BCTL" release 2 >/dev/null && as "$BSTOP" 3 >/dev/null &&
	as "$BRESUME" 3 >/dev/null && as "$BCTL" limit 2 30 >/dev/null
ok $? "bctl hold, release and limit; bstop and bresume"
as "$BCTL" requeue 1 >out 2>&1 && grep -q "to queue again" out && st 1 queued 10
ok $? "bctl requeue 1"
"$BCTL" status >out 2>&1
[ $? -eq 1 ] && grep -q "serves only that user" out
ok $? "root is refused by a user's daemon: $(cat out)"
as "$BKILL" 0 >/dev/null && st 1 cancelled 10
ok $? "bkill 0"
as "$BQ" -d >out && grep -q "cancelled" out && as "$BQ" --swf | grep -q "^; *Version"
ok $? "bq -d and bq --swf"
stop_daemon
done_testing
