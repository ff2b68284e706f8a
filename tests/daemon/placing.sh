#!/bin/sh
# A lost node takes back the reservations that no longer fit; the daemon
# places them again a slice per loop turn (here one job a slice, so that a
# short queue takes many turns), answering clients between the slices. A
# submission meanwhile is answered with its guarantee once every job
# before it has its place, a listing shows a whole plan, and every
# guarantee that moved later is announced.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
BCTL="$BF_BUILD/bctl"

BACKFILLD_TEST_PLACE_SLICE=1 start_daemon --nodes 6 --policy conservative --kill-grace 1
ok $? "the daemon starts (conservative, 6 nodes, placing again one job a slice)"
printf '#!/bin/sh\nsleep "${1:-600}"\n' >job.sh
"$BSUB" -n 6 -t 10:00 -o /dev/null job.sh >/dev/null && wait_state 1 running
ok $? "job 1 holds all 6 nodes"
i=0
for size in 3 2 1 4 2 5 1 3 2 6 1 2 3 1 4 2 1 5 2 3 1 2 4 1 3 2 1 2 3 1; do
	"$BSUB" -n "$size" -t "0:$((10 + i % 5 * 10))" -o /dev/null job.sh >/dev/null || break
	i=$((i + 1))
done
[ $i -eq 30 ]
ok $? "30 jobs of 1 to 6 nodes queue behind it"

guarantees >g0
cp daemon.log log0
# node006 is out from job 1's planned end: 5 nodes from then on.
"$BCTL" drain node006 --reason "placing test" >/dev/null
ok $? "bctl drain node006: answered"
"$BSUB" -n 1 -t 0:10 -o /dev/null job.sh >sub.out
grep -q "guaranteed to start by" sub.out
ok $? "a submission right after is answered with a guarantee: $(cat sub.out)"
"$BQ" -a --json >list.json
grep -c '"state":"queued"' list.json | grep -qx 31
ok $? "a listing right after shows the 31 queued jobs"

wait_log "placed again: "
line=$(grep "placed again: " daemon.log | tail -1)
got=$(echo "$line" | sed -n 's/.*placed again: \([0-9]*\) queued jobs in \([0-9]*\) loop turns.*/\1 \2/p')
[ -n "$got" ] && [ "${got% *}" -ge 2 ] && [ "${got#* }" -ge 2 ]
ok $? "the jobs were placed again over several loop turns (log: ${line#*: })"

guarantees >g1
silent g0 g1 log0 >"$TMP/silent"
later=$(moved_later g0 g1)
[ ! -s "$TMP/silent" ] && [ "$later" -ge 2 ]
ok $? "$later guarantees moved later, each announced"
sed 's/^/# /' "$TMP/silent"

# The job submitted while the others were placed: placed after them, and
# its guarantee as answered or earlier.
id=$(sed -n 's/^Job \([0-9]*\).*/\1/p' sub.out)
answered=$(awk -v j="$id" '$1 == j { print $2 }' g1)
[ -n "$id" ] && [ -n "$answered" ] && [ "$answered" != none ]
ok $? "job $id has a guarantee in the listing ($answered)"
! grep -q "job $id: guarantee broken" daemon.log
ok $? "job $id's guarantee was never broken"
done_testing
