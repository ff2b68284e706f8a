#!/bin/sh
# Broken guarantees are announced a slice per loop turn (here two a turn,
# so that a short queue takes several): a switch of policy with 100,000
# queued breaks as many, each a log line, a row and a history entry. A
# listing meanwhile waits for the last of them and shows them all; a
# cancel of a job whose announcement waits its turn tells it first.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

printf 'nodes: 4\npolicy: conservative\nkill_grace: 1s\n' >p.yaml
BACKFILLD_TEST_ANNOUNCE_SLICE=2 BACKFILLD_TEST_TURN_GAP_MS=150 start_daemon --config "$TMP/p.yaml"
ok $? "the daemon starts (conservative, 4 nodes, two announcements a turn, 150 ms apart)"
printf '#!/bin/sh\nsleep "${1:-600}"\n' >job.sh
"$BSUB" -n 4 -t 10:00 -o /dev/null job.sh >/dev/null && wait_state 1 running
ok $? "job 1 holds the 4 nodes"
i=0
for size in 3 2 1 4 2 1 3 2 4 1 2 3; do
	"$BSUB" -n "$size" -t "0:$((10 + i % 4 * 10))" -o /dev/null job.sh >/dev/null || break
	i=$((i + 1))
done
[ $i -eq 12 ] && [ "$(guarantees | grep -vc none)" -eq 12 ]
ok $? "12 jobs queue behind it, each guaranteed"

# To EASY: every guarantee but the head's (job 2) is dropped and told.
sed -i 's/conservative/easy/' p.yaml
kill -HUP "$DPID"
sleep 0.3
"$BKILL" 13 >kill.out 2>&1
ok $? "a cancel meanwhile is answered: $(cat kill.out)"
"$BQ" -a --json >list.json
kept=$(tr '\n' ' ' <list.json | grep -o '{[^{}]*}' | grep '"state":"queued"' |
	grep -c '"start_kind":"guaranteed"')
[ "$kept" -eq 1 ]
ok $? "a listing right after shows one guarantee, the head's ($kept)"

wait_log "announced [0-9]* broken guarantees"
line=$(grep "announced [0-9]* broken guarantees" daemon.log | tail -1)
got=$(echo "$line" | sed -n 's/.*announced \([0-9]*\) broken guarantees in \([0-9]*\) loop turns.*/\1 \2/p')
[ "${got% *}" = 11 ] && [ "${got#* }" -ge 3 ]
ok $? "11 broken guarantees announced over several loop turns (log: ${line#*: })"
missing=""
for id in 3 4 5 6 7 8 9 10 11 12 13; do
	grep -q "job $id: guarantee broken: start moved later from [0-9]*-[0-9]*-[0-9]* [0-9:]* to none (the policy changed)" \
		daemon.log || missing="$missing $id"
done
[ -z "$missing" ] && ! grep -q "job 2: guarantee broken" daemon.log
ok $? "each of jobs 3 to 13 is told, the head is not${missing:+ (missing:$missing)}"
# Job 13 was cancelled while its announcement waited: told before the cancel.
told=$(grep -n "job 13: guarantee broken" daemon.log | cut -d: -f1)
gone=$(grep -n "job 13: cancelled" daemon.log | cut -d: -f1)
[ -n "$told" ] && [ -n "$gone" ] && [ "$told" -lt "$gone" ]
ok $? "job 13's announcement comes before its cancel (lines $told, $gone)"
[ "$(grep -c "job 13: guarantee broken" daemon.log)" -eq 1 ]
ok $? "and only once"
"$BQ" -l 5 | grep -q "(predicted" && "$BQ" -l 5 | grep -q "start moved from .* to none (the policy changed)"
ok $? "bq -l 5: predicted, with the announcement"
cancel_all
stop_daemon
grep -q "stopping on signal" daemon.log
ok $? "the daemon stops"

# A crash while they are told: the new policy is stored only once all are
# told, so the restart switches again from the stored one and tells them.
rm -rf state.db* spool
: >daemon.log
sed -i 's/easy/conservative/' p.yaml
BACKFILLD_TEST_ANNOUNCE_SLICE=1 BACKFILLD_TEST_TURN_GAP_MS=300 start_daemon --config "$TMP/p.yaml"
"$BSUB" -n 4 -t 10:00 -o /dev/null job.sh >/dev/null && wait_state 1 running
for size in 3 2 1 4 2 1; do "$BSUB" -n "$size" -t 0:20 -o /dev/null job.sh >/dev/null; done
[ "$(guarantees | grep -vc none)" -eq 6 ]
ok $? "again: job 1 runs, jobs 2 to 7 are guaranteed"
sed -i 's/conservative/easy/' p.yaml
kill -HUP "$DPID"
wait_log "the policy is now easy"
sleep 0.4
stop_daemon KILL
told=$(grep -c "guarantee broken" daemon.log)
[ "$told" -lt 5 ]
ok $? "killed while telling them ($told of 5 told)"
start_daemon --config "$TMP/p.yaml"
wait_log "the policy changes from conservative (the stored plan's) to easy" &&
	wait_log "job 7: guarantee broken"
ok $? "the restart switches from the stored policy again"
missing=""
for id in 3 4 5 6 7; do
	grep -q "job $id: guarantee broken: .* (the policy changed)" daemon.log || missing="$missing $id"
done
[ -z "$missing" ]
ok $? "each of jobs 3 to 7 is told${missing:+ (missing:$missing)}"
done_testing	# (the exit cancels every job, then stops the daemon)
