#!/bin/sh
# bctl(8)'s node commands against a live daemon: a drained node finishes
# its job and takes no new one, a node marked down ends its job as failed,
# every guarantee that moves later is announced (bq, bq -l, the log), the
# states survive a restart, and only root and the admin group may use bctl.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
BCTL="$BF_BUILD/bctl"
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
chmod 755 "$TMP"

printf '#!/bin/sh\nsleep "${1:-300}"\n' >job.sh
chmod 644 job.sh

# usage ARGS...: bctl refuses before asking the daemon (exit 2).
usage() { "$BCTL" "$@" >/dev/null 2>"$TMP/err"; [ $? -eq 2 ]; }
usage
ok $? "no command: usage error (exit 2)"
usage frobnicate
ok $? "an unknown command: usage error"
usage drain node001
ok $? "drain without --reason: usage error"
grep -q "give a reason" "$TMP/err"
ok $? "... which says to give a reason"
usage drain 'node[1-' --reason x
ok $? "a node list that does not parse: usage error"
usage resume node001 --reason x
ok $? "resume takes no reason"
usage nodes node001 node002
ok $? "nodes takes one node list at most"

start_daemon --nodes 4 --policy conservative --kill-grace 1 || exit 1

$AS_NOBODY "$BCTL" nodes >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "bctl is for root" "$TMP/err"
ok $? "a user who is not an admin is refused, clearly (exit 1)"
"$BCTL" drain node999 --reason x >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "no node node999 in the partition node\[001-004\]" "$TMP/err"
ok $? "a node that is not in the partition is named (exit 1)"
"$BCTL" drain node004 --reason "$(printf 'two\nlines')" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "control character" "$TMP/err"
ok $? "a reason with a newline is refused (it would forge log lines)"

"$BSUB" -n 2 -t 1:00 job.sh >/dev/null	# job 1: node[001-002]
"$BSUB" -n 4 -t 1:00 job.sh >/dev/null	# job 2: guaranteed after job 1
wait_state 1 running
sup=$(pgrep -P "$DPID" | head -1)
[ -n "$sup" ] && [ "$(tr '\0' ' ' <"/proc/$sup/cmdline" | sed 's/ *$//')" = "backfilld: job 1" ] &&
	[ "$(cat "/proc/$sup/comm")" = "bfd-job 1" ]
ok $? "ps shows job 1's supervisor as 'backfilld: job 1' (comm bfd-job 1)"
"$BCTL" nodes >out
grep -q "^node\[001-002\] *busy *1 " out && grep -q "^node\[003-004\] *idle *- " out
ok $? "bctl nodes: runs of alike nodes, busy with their job or idle"
start1=$("$BQ" -l 1 | sed -n 's/^Start: *\([0-9-]* [0-9:]*\) (started)$/\1/p')
[ -n "$start1" ] && grep -q "^node\[001-002\] *busy *1 *$start1 " out
ok $? "bctl nodes: SINCE of a busy node is when its job started ($start1)"
"$BCTL" nodes 'node[002-003]' >out
[ $? -eq 0 ] && [ "$(grep -c '^node' out)" -eq 2 ] && grep -q "^node002 *busy *1 " out &&
	grep -q "^node003 *idle *- " out && ! grep -q "node001\|node004" out && grep -q "^NODES " out
ok $? "bctl nodes node[002-003]: only those nodes"
"$BCTL" nodes 'node[004-005]' >out 2>err
[ $? -eq 1 ] && grep -q "no node named node005" err
ok $? "bctl nodes with a node that is not in the partition: named, exit 1"
"$BCTL" nodes 'node[' >out 2>err
[ $? -eq 2 ]
ok $? "bctl nodes with a bad node list: usage error"

"$BCTL" drain node001 --reason "fan failing" >out
[ $? -eq 0 ] && grep -q "^node001: drain$" out
ok $? "bctl drain node001: answered with the new state"
"$BCTL" nodes >out
grep -q "^node001 *drain *1 .*root (uid 0) *fan failing$" out
ok $? "the drained node still runs job 1; since, by whom and why are shown"
wait_state 1 running
ok $? "job 1 was not signalled"
"$BQ" -a | grep -q "^ *2 .*queued! "
ok $? "bq marks job 2, whose guarantee moved later"
"$BQ" -l 2 | grep -q "^Guarantee broken: *at .*: start moved from .* to none until nodes return (nodes drained)$"
ok $? "bq -l 2 says when, from what, to what and why"
"$BQ" -l 2 | grep -q "^Pending reason: *nodes drained or down: 3 of the partition's 4 nodes are in service, it needs 4$"
ok $? "and its pending reason: nodes drained"
grep -q "job 2: guarantee broken: .*(nodes drained)" daemon.log &&
	grep -q "node node001: drained by root (uid 0): fan failing; its job finishes first" daemon.log
ok $? "the log has the drain and the broken guarantee, one line each"
# Times in the log are in words, as in every other line, never raw seconds.
grep -Eq "job 2: guarantee broken: start moved later from [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} to none \(nodes drained\)$" daemon.log
ok $? "the broken guarantee's old start is a local date and time, not seconds since the epoch"
"$BCTL" drain node001 --reason again >out
grep -q "^node001: drain (unchanged)$" out
ok $? "draining it again changes nothing, and says so"

"$BSUB" -n 1 -t 1:00 job.sh 1 >/dev/null	# job 3: an idle node, not node001
wait_state 3 "running\|done"
"$BQ" -l 3 | grep -q "^Node list: *node00[34]$"
ok $? "a new job starts on an idle node, not on the drained one"
wait_state 3 done

# A restart: the drained node stays drained, job 1 is adopted.
stop_daemon
start_daemon --nodes 4 --policy conservative --kill-grace 1 || exit 1
"$BCTL" nodes >out
grep -q "^node001 *drain *1 .*fan failing$" out
ok $? "after a restart node001 is still drained, with its reason, and job 1 runs on it"
grep -q "node node001: drained since the last run (fan failing)" daemon.log
ok $? "the restart says so in the log"

"$BCTL" down node002 --reason "dead" >out
[ $? -eq 0 ] && grep -q "^node002: down$" out
ok $? "bctl down node002: answered"
wait_state 1 failed 10
ok $? "job 1, on the lost node, ends as failed"
"$BQ" -l 1 | grep -q "^Reason: *node node002 was marked down by root (uid 0): dead$"
ok $? "bq -l 1 says why"
grep -q "node node002: lost: marked down by root (uid 0): dead; its job 1 is killed and ends as failed" daemon.log
ok $? "the log says the node was lost and what became of its job"

"$BCTL" status >out
grep -q "^policy: *conservative$" out && grep -q "^nodes: *4: 2 idle, 0 busy, 1 drained, 1 down$" out &&
	grep -q "^jobs: *0 running, 1 queued$" out
ok $? "bctl status: the policy, nodes by state, the jobs"
grep -Eq "^limits: *default none, max unlimited, max nodes unlimited, per user [0-9]+ queued, unlimited running$" out &&
	! grep -q "0: none" out
ok $? "bctl status: a limit not set is unlimited, in words"
$AS_NOBODY "$BQ" --nodes >out
grep -q "^node001 *drain *- " out && grep -q "^node002 *down *- " out &&
	grep -q "^node\[003-004\] *free " out && grep -q "^4 nodes: 0 busy, 2 free, 1 drained, 1 down$" out
ok $? "bq --nodes (any user) shows the drained and the down node as such, not free"
$AS_NOBODY "$BQ" --nodes --json | grep -q '"name":"node002","state":"down"'
ok $? "and so does its JSON"

"$BCTL" resume 'node[001-002]' >out
[ $? -eq 0 ] && grep -q "^node\[001-002\]: " out
ok $? "bctl resume node[001-002]"
wait_state 2 running
ok $? "job 2 gets its four nodes"
grep -q "node node002: back in service (resumed by root (uid 0))" daemon.log
ok $? "the log says the nodes are back"
"$BKILL" 2 >/dev/null
wait_state 2 cancelled

# bq ID... and bq -l ID...: the jobs asked for, in order.
"$BQ" 3 1 >out
[ "$(sed -n '2s/^ *\([0-9]*\) .*/\1/p;3s/^ *\([0-9]*\) .*/\1/p' out | tr '\n' ' ')" = "3 1 " ]
ok $? "bq 3 1: a table of jobs 3 and 1, in that order"
"$BQ" -l 1 -l 3 | grep -c "^Job: " | grep -qx 2
ok $? "bq -l 1 -l 3: both in detail"
"$BQ" 1 99 >out 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "^ *1 " out && grep -q "99" "$TMP/err"
ok $? "bq 1 99: job 1 shown, job 99 said to be missing (exit 1)"

# Down while idle, then up: nothing to kill.
"$BCTL" down node003 --reason "cable" >/dev/null && "$BCTL" up node003 >/dev/null &&
	"$BCTL" nodes | grep -q "^node\[001-004\] *idle"
ok $? "down and up again: every node idle"

# Every guarantee a drain or a down moves later is announced: a queue of
# mixed sizes, its guarantees before and after each change, and for every
# job whose start moved later (or was lost) a "guarantee broken" line of
# its own since the change, its mark in the listing and its line in bq -l
# (guarantees and silent: lib.sh).
"$BSUB" -n 2 -t 1:00 -o /dev/null job.sh >/dev/null
for size in 4 1 2 3 1 4 2 1; do "$BSUB" -n "$size" -t 0:30 -o /dev/null job.sh >/dev/null; done
sleep 0.5
guarantees >g0; cp daemon.log log0
"$BCTL" drain node003 --reason x >/dev/null
sleep 0.5
guarantees >g1; cp daemon.log log1
silent g0 g1 log0 >"$TMP/silent"
later=$(moved_later g0 g1)
[ ! -s "$TMP/silent" ] && [ "$later" -gt 0 ]
ok $? "drain under conservative with $(wc -l <g0) queued: $later guarantees moved later, each announced"
sed 's/^/# /' "$TMP/silent"
"$BCTL" down node001 --reason y >/dev/null
sleep 1
guarantees >g2
silent g1 g2 log1 >"$TMP/silent"
later=$(moved_later g1 g2)
[ ! -s "$TMP/silent" ] && [ "$later" -gt 0 ]
ok $? "down of a busy node: $later guarantees moved later (the 3-node job's at least), each announced"
sed 's/^/# /' "$TMP/silent"
done_testing
