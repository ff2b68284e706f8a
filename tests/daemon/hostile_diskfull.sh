#!/bin/sh
# A full disk never stops the daemon (reserve.h, SECURITY.md): with its
# database and spool on a 48 MiB file system that fills up to the last
# block (a job of nobody's writing anywhere there would do the same),
#   A. a commit that fails for want of space is written again with the
#      reserve given back, the change it held is kept, new submissions are
#      refused saying why, and a running job's end is still recorded;
#   B. the watch gives the reserve back before any write fails, and once
#      space returns the daemon takes submissions again by itself;
#   C. a daemon killed and started again on a disk full to the last block,
#      with no reserve left to take, runs, finds its jobs, refuses what it
#      cannot store and takes submissions again once space returns.
# The file system is a tmpfs in a private mount namespace: the test runs
# itself again inside one.
if [ -z "${BF_FULL_NS:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare -m --propagation private true 2>/dev/null; then
	exec unshare -m --propagation private env BF_FULL_NS=1 sh "$0"
fi
. "$BF_TOP/tests/lib.sh"
NB="setpriv --reuid=nobody --regid=nogroup --clear-groups"
FS="$TMP/fs"

if [ "${BF_FULL_NS:-}" != 1 ]; then
	for t in commit-again logged kept refused end-recorded runs-on watch not-lost refused-b \
		listings recovered released submits-again start-full refused-c end-recorded-c \
		submits-again-c; do
		skip_check "full disk: $t" "needs root and a private mount namespace (unshare -m)"
	done
	done_testing
	exit 0
fi
mkdir "$FS" && mount -t tmpfs -o size=48m,mode=0755 tmpfs "$FS" || exit 1
chmod 755 "$TMP"
trap 'cleanup_full' EXIT
cleanup_full() {
	rm -f "$FS/filler" "$FS/filler2"
	[ -n "$DPID" ] && cancel_all
	stop_daemon
	umount "$FS" 2>/dev/null || umount -l "$FS"
	rm -rf "$TMP"
}
printf 'nodes: 2\nmin_free_disk: 8M\n' >"$TMP/c.yaml"
start() {
	"$BFD" --foreground --config "$TMP/c.yaml" --socket "$TMP/s.sock" --db "$FS/state.db" \
		--spool "$FS/spool" >>"$TMP/daemon.log" 2>&1 &
	DPID=$!
	i=0
	until "$BQ" >/dev/null 2>&1 || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
}
fill() { dd if=/dev/zero of="$FS/filler" bs=1M 2>/dev/null; sync; }
id_of() { sed -n 's/^Job \([0-9]*\) submitted.*/\1/p'; }
mkdir "$TMP/u" && chown nobody:nogroup "$TMP/u"
printf '#!/bin/sh\nsleep 300\n' >"$TMP/u/j.sh"
chmod 755 "$TMP/u/j.sh"
cd "$TMP/u" || exit 1

# ---- A: the commit fails ----
# No watch in the way, no room held past the store's ends (the defence
# that comes first: without it a commit can fail), and a short log
# between checkpoints, so that the log has little room of its own.
BACKFILLD_TEST_RESERVE_WATCH_S=3600 BACKFILLD_TEST_NO_TAILS=1 BACKFILLD_TEST_CHECKPOINT_PAGES=16 start
r=$($NB "$BSUB" -n 1 -t 1:00 ./j.sh | id_of)
wait_state "$r" running 10
ids=
k=0
while [ $k -lt 60 ]; do
	ids="$ids $("$BSUB" -n 2 -t 1:00 ./j.sh | id_of)"
	k=$((k + 1))
done
fill
echo "# free before the holds: $(df -k --output=avail "$FS" | tail -1) KiB"
# Hold and release until a commit finds no room (each change logged
# grows the database, which a checkpoint then cannot grow: the log must).
rc=0
round=0
while [ $round -lt 40 ] && [ $rc -eq 0 ] &&
	! grep -q "the disk was full: the last changes were written again" "$TMP/daemon.log"; do
	# shellcheck disable=SC2086
	"$BF_BUILD/bstop" $ids >>"$TMP/hold.out" 2>&1 &&
		"$BF_BUILD/bresume" $ids >>"$TMP/hold.out" 2>&1
	rc=$?
	round=$((round + 1))
done
# shellcheck disable=SC2086
"$BF_BUILD/bstop" $ids >>"$TMP/hold.out" 2>&1 || rc=1
echo "# $round rounds of holds"
wait_log "the disk was full: the last changes were written again" 5
ok $? "a commit fails for want of space: it is written again with the reserve given back"
grep -q "error: the disk is full (.*database or disk is full)" "$TMP/daemon.log"
ok $? "  and the log says so as an error"
held=$("$BQ" --json 2>/dev/null | grep -o '"state":"held"' | wc -l)
[ $rc -eq 0 ] && [ "$held" -eq 60 ]
ok $? "  every change is kept: each bstop and bresume said so (status $rc), and all $held are held"
"$BSUB" -n 1 -t 1:00 ./j.sh >/dev/null 2>"$TMP/err"
[ $? -ne 0 ] && grep -q "the daemon's disk is full: it takes no new job until space is freed" "$TMP/err"
ok $? "  a new submission, even root's, is refused saying why: $(cat "$TMP/err")"
"$BKILL" "$r" >/dev/null
wait_state "$r" cancelled 15 && "$BQ" -l "$r" 2>/dev/null | grep -q "cancelled" &&
	! grep -q "job $r: .*lost" "$TMP/daemon.log"
ok $? "  nobody's running job is cancelled and its end recorded, not lost"
kill -0 "$DPID"
ok $? "  the daemon runs on"
# (Its stop stores every job as it is: room for it first.)
rm -f "$FS/filler"
cancel_all
stop_daemon

# ---- B: the watch, and the way back ----
start
# nobody's job q waits, held, with the nodes free: root's job b held
# them while q was submitted and held.
b=$("$BSUB" -n 2 -t 1:00 ./j.sh | id_of)
wait_state "$b" running 10
q=$($NB "$BSUB" -n 2 -t 1:00 ./j.sh | id_of)
$NB "$BF_BUILD/bstop" "$q" >/dev/null
"$BKILL" "$b" >/dev/null && wait_state "$b" cancelled 10
wait_state "$q" held 5
fill
wait_log "the disk is full (.* KiB left for root on the store's file system)" 5
ok $? "the disk fills: within the watch's 2 s the reserve is given back"
# What the reserve gave back is taken too: q starts into a spool with no
# room for its supervisor's records.
dd if=/dev/zero of="$FS/filler2" bs=4k 2>/dev/null
$NB "$BF_BUILD/bresume" "$q" >/dev/null
wait_log "job $q: not started: no room in the spool; held until space returns" 10 &&
	wait_state "$q" held 5
ok $? "  job $q, started into a full spool, is not lost: held until space returns"
$NB "$BSUB" -n 1 -t 1:00 ./j.sh >/dev/null 2>"$TMP/err"
[ $? -ne 0 ] && grep -q "disk is" "$TMP/err"
ok $? "  nobody is refused: $(cat "$TMP/err")"
"$BQ" -a >/dev/null
ok $? "  listings still answer"
rm -f "$FS/filler" "$FS/filler2"
wait_log "space is free again: the disk reserve is back" 6
ok $? "space freed: the reserve is taken back by itself"
wait_log "job $q: released by the daemon: space is free again" 5 && wait_state "$q" running 10
ok $? "  and job $q is released and runs"
$NB "$BSUB" -n 1 -t 1:00 ./j.sh >/dev/null && "$BSUB" -n 1 -t 1:00 ./j.sh >/dev/null
ok $? "  and nobody and root submit again, nothing restarted"

# ---- C: a start on a disk that is full already ----
# kill -9 with nobody's job running and another queued; meanwhile its
# reserve file is gone (as after a stop that had given it back) and the
# disk is filled to the last block; then a start: it runs, finds both
# jobs, answers, refuses what it cannot store, and takes submissions once
# space returns.
cancel_all
r=$($NB "$BSUB" -n 1 -t 1:00 ./j.sh | id_of)
wait_state "$r" running 10
w=$($NB "$BSUB" -n 2 -t 1:00 ./j.sh | id_of)
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
DPID=
rm -f "$FS/state.db.reserve"
fill
echo "# free before the start: $(df -k --output=avail "$FS" | tail -1) KiB"
start
kill -0 "$DPID" 2>/dev/null && [ "$(job_state "$r")" = running ] && [ "$(job_state "$w")" = queued ]
ok $? "a start on a full disk: the daemon runs and finds nobody's running job $r and queued job $w ($(job_state "$r"), $(job_state "$w"))"
$NB "$BSUB" -n 1 -t 1:00 ./j.sh >/dev/null 2>"$TMP/err"
[ $? -ne 0 ] && grep -q "disk is" "$TMP/err"
ok $? "  a submission is refused saying why: $(cat "$TMP/err")"
"$BKILL" "$r" >/dev/null
wait_state "$r" cancelled 15 && ! grep -q "job $r: .*lost" "$TMP/daemon.log"
ok $? "  job $r is cancelled and its end recorded, not lost"
rm -f "$FS/filler"
i=0
until $NB "$BSUB" -n 1 -t 1:00 ./j.sh >/dev/null 2>&1 || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
[ $i -lt 50 ] && kill -0 "$DPID"
ok $? "  space freed: nobody submits again, nothing restarted"
done_testing
