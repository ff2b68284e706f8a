#!/bin/sh
# CREASY in the live daemon (backfilld(8), POLICIES): --policy creasy needs
# its alpha; a short job that arrives after a long one takes the head's
# reservation, the long one is told and says why it waits, and the short
# one starts first; bctl status names the policy and alpha; a reload of
# the configuration file changes alpha; a restart keeps the policy.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
BCTL="$BF_BUILD/bctl"
printf '#!/bin/sh\nsleep 300\n' >long.sh
printf '#!/bin/sh\nexit 0\n' >quick.sh

"$BF_BUILD/backfilld" --foreground --socket "$TMP/x.sock" --db "$TMP/x.db" --spool "$TMP/xs" \
	--policy creasy >out 2>&1
[ $? -eq 2 ] && grep -q "policy creasy needs its alpha" out
ok $? "--policy creasy without an alpha: refused ($(head -1 out))"
"$BF_BUILD/backfilld" --foreground --policy creasy --alpha -3 >out 2>&1
[ $? -eq 2 ] && grep -q -- "--alpha -3: expected a number from 0 to 1e9" out
ok $? "--alpha -3: refused with the range"
printf 'policy: creasy\nnodes: 2\n' >bad.yaml
"$BF_BUILD/backfilld" --check-config bad.yaml >out 2>&1
[ $? -ne 0 ] && grep -q "bad.yaml:1:9: policy creasy needs alpha" out
ok $? "--check-config: a file with policy creasy and no alpha ($(head -1 out))"

printf 'policy: creasy\nalpha: 1000\nnodes: 2\nkill_grace: 1s\n' >c.yaml
start_daemon --config "$TMP/c.yaml" || exit 1
"$BCTL" status | grep -q "^policy: *creasy, alpha 1000$"
ok $? "bctl status: creasy, alpha 1000"
grep -q "listening on .*creasy (alpha 1000)" daemon.log
ok $? "the log names the policy and alpha"

# guarantee ID: the job's reserved start (µs), empty if none.
guarantee() { "$BQ" -l "$1" --json | sed -n 's/.*"start_us":\([0-9]*\).*"start_kind":"guaranteed".*/\1/p'; }
"$BSUB" -n 2 -t 5 -o /dev/null long.sh >/dev/null	# 1: holds both nodes
wait_state 1 running
"$BSUB" -n 2 -t 4:00 -o /dev/null long.sh >/dev/null	# 2: 4 hours, the head
[ -n "$(guarantee 2)" ]
ok $? "the long job, alone waiting, has the head's reservation"
"$BSUB" -n 2 -t 1 -o /dev/null quick.sh >/dev/null	# 3: 1 minute, more critical
wait_log "job 2: guarantee broken: .*(a job of higher priority came first (creasy))"
ok $? "the long job is told a job of higher priority took its reservation"
[ -n "$(guarantee 3)" ] && [ -z "$(guarantee 2)" ]
ok $? "the short job has the reservation now, the long one none"
"$BQ" -l 3 | grep -q "^Pending reason: *waiting for nodes (first in the queue by priority: its start is reserved)$" &&
	"$BQ" -l 2 | grep -q "^Pending reason: *waiting for nodes, behind jobs of higher priority"
ok $? "bq -l: the short job is first by priority, the long one behind jobs of higher priority"
"$BKILL" 1 >/dev/null
wait_state 3 "running\|done" && wait_state 2 running
ok $? "when the nodes free, the short job runs first, then the long one"

# A reload changes alpha; a restart keeps the policy.
sed -i 's/^alpha: 1000/alpha: 0/' c.yaml
kill -HUP "$DPID"
wait_log "reload: alpha 1000 -> 0 from the next pass"
ok $? "SIGHUP: alpha 1000 -> 0 logged"
"$BCTL" status | grep -q "^policy: *creasy, alpha 0$"
ok $? "bctl status: alpha 0 after the reload"
stop_daemon
start_daemon --config "$TMP/c.yaml" || exit 1
"$BCTL" status | grep -q "^policy: *creasy, alpha 0$"
ok $? "after a restart: still creasy, alpha 0"

# A released job waits from its release: behind a job submitted while it
# was held, as under EASY, also after a restart.
cancel_all
"$BSUB" -n 2 -t 5 -o /dev/null long.sh >/dev/null	# holds both nodes
a=$("$BSUB" -n 2 -t 10 -o /dev/null long.sh | sed -n 's/^Job \([0-9]*\).*/\1/p')
"$BF_BUILD/bstop" "$a" >/dev/null
sleep 1
b=$("$BSUB" -n 2 -t 10 -o /dev/null long.sh | sed -n 's/^Job \([0-9]*\).*/\1/p')
"$BF_BUILD/bresume" "$a" >/dev/null
[ -n "$(guarantee "$b")" ] && [ -z "$(guarantee "$a")" ]
ok $? "alpha 0: job $b, submitted while $a was held, is first; $a waits from its release"
stop_daemon
start_daemon --config "$TMP/c.yaml" || exit 1
[ -n "$(guarantee "$b")" ] && [ -z "$(guarantee "$a")" ]
ok $? "after a restart too (the release time is stored)"
cancel_all
stop_daemon
done_testing
