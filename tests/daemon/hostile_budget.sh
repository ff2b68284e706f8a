#!/bin/sh
# What one ordinary user can make a root daemon store is bounded
# (backfilld.yaml(5): max_stored_per_user, keep_ended_per_user,
# min_free_disk; SECURITY.md): as nobody, against a root daemon whose
# database and spool share a 48 MiB file system,
#   1. submit-then-cancel cycles with large environments no longer fill
#      the disk: an ended job keeps no environment, and a user's ended jobs
#      stay within keep_ended_per_user;
#   4. queued jobs with large environments stop at max_stored_per_user,
#      and the daemon's memory with them;
#   5. listings read no environments: 32 parallel listings by nobody
#      leave root's bq answering;
#   and below min_free_disk only root submits, until space returns.
# Root's bsub and bq are timed throughout (printed, not judged: the bounds
# asserted are bytes, counts and refusals).
#
# The 48 MiB file system is a tmpfs in a private mount namespace: the test
# runs itself again inside one.
if [ -z "${BF_BUDGET_NS:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare -m --propagation private true 2>/dev/null; then
	exec unshare -m --propagation private env BF_BUDGET_NS=1 sh "$0"
fi
. "$BF_TOP/tests/lib.sh"
NB="setpriv --reuid=nobody --regid=nogroup --clear-groups"
FS="$TMP/fs"

if [ "${BF_BUDGET_NS:-}" != 1 ]; then
	for t in disk-churn ended-budget memory-cap listing free-space; do
		skip_check "hostile budget: $t" "needs root and a private mount namespace (unshare -m)"
	done
	done_testing
	exit 0
fi
mkdir "$FS" && mount -t tmpfs -o size=48m,mode=0755 tmpfs "$FS" || exit 1
chmod 755 "$TMP"
# Whatever happens, the daemon stops and the file system goes.
trap 'cleanup_daemon_fs' EXIT
cleanup_daemon_fs() {
	[ -n "$DPID" ] && cancel_all
	stop_daemon
	umount "$FS" 2>/dev/null || umount -l "$FS"
	rm -rf "$TMP"
}

cat >"$TMP/b.yaml" <<EOF
nodes: 2
max_stored_per_user: 2M
keep_ended_per_user: 64K
min_free_disk: 8M
EOF
"$BFD" --foreground --config "$TMP/b.yaml" --socket "$TMP/s.sock" --db "$FS/state.db" \
	--spool "$FS/spool" >>"$TMP/daemon.log" 2>&1 &
DPID=$!
i=0
until "$BQ" >/dev/null 2>&1 || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done

mkdir "$TMP/u" && chown nobody:nogroup "$TMP/u"
printf '#!/bin/sh\nsleep 300\n' >"$TMP/u/j.sh"
chmod 755 "$TMP/u/j.sh"
cd "$TMP/u" || exit 1
# (The files' sizes, less the disk reserve: the daemon holds that, and room
# past the database's end, whatever users do.)
used_kb() { du -sk --apparent-size --exclude='*reserve' "$FS" | cut -f1; }
# ms CMD...: how long CMD takes, in milliseconds.
ms() {
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	echo $((($(date +%s%N) - t0) / 1000000))
}

# ---- 1: submit and cancel, 300 times, 96 KB of environment each ----
rss0=$(rss_kb)
worst=0
c=0
while [ $c -lt 300 ]; do
	big_env $NB "$BSUB" -n 2 -t 1:00 ./j.sh >/dev/null 2>&1
	$NB "$BKILL" 0 >/dev/null 2>&1
	c=$((c + 1))
	if [ $((c % 50)) -eq 0 ]; then
		t=$(ms "$BQ" -a)
		[ "$t" -gt "$worst" ] && worst=$t
	fi
done
kill -0 "$DPID"
ok $? "300 submit-and-cancel cycles of 96 KB each (28 MB sent): the daemon runs on"
echo "# disk used: $(used_kb) KB; root's bq -a: at most $worst ms during the cycles"
[ "$(used_kb)" -lt 8192 ]
ok $? "  the database and spool hold under 8 MB ($(used_kb) KB; 28 MB were sent)"
rss=$(rss_kb)
rss_under $((rss0 + 8192)) "$rss" "  the daemon's memory grew by under 8 MB ($rss0 KB to $rss KB)"
kept=$("$BQ" -d -a -u nobody --json 2>/dev/null | tr '{' '\n' | grep -c '"id"')
[ "$kept" -gt 20 ] && [ "$kept" -lt 200 ]
ok $? "  nobody's ended jobs stay within keep_ended_per_user 64K: $kept of 300 kept"
grep -q "uid 65534: removed .* bytes of its oldest ended jobs" "$TMP/daemon.log"
ok $? "  and the log says the oldest went"
# Each was cancelled as soon as it started: none may live on (a cancel that
# came while the job's child was being forked was once swallowed).
i=0
while pgrep -u nobody -f "^sleep 300$" >/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
! pgrep -u nobody -f "^sleep 300$" >/dev/null
ok $? "  no job of the 300 cycles is left running"

# ---- 4: queued jobs with large environments ----
acc=0
refused=
k=0
while [ $k -lt 60 ] && [ -z "$refused" ]; do
	if big_env $NB "$BSUB" -n 2 -t 1:00 ./j.sh >/dev/null 2>"$TMP/err"; then
		acc=$((acc + 1))
	else
		refused=1
	fi
	k=$((k + 1))
done
grep -q "more than max_stored_per_user 2.0 MiB" "$TMP/err"
ok $? "queued jobs of 96 KB each stop at max_stored_per_user 2M: $acc taken, then: $(cat "$TMP/err")"
[ "$acc" -ge 15 ] && [ "$acc" -le 21 ]
ok $? "  about 2 MiB of them ($acc jobs)"
rss1=$(rss_kb)
echo "# daemon RSS: $rss0 KB before, $rss1 KB with nobody at the cap"
rss_under $((rss0 + 16384)) "$rss1" "  the daemon's memory grew by under 16 MB ($rss0 KB to $rss1 KB)"
t=$(ms "$BSUB" -n 1 -t 1:00 ./j.sh)
"$BSUB" -n 1 -t 1:00 ./j.sh >/dev/null 2>&1
ok $? "  root still submits ($t ms)"

# ---- 5: 32 parallel listings by nobody ----
pids=
p=0
while [ $p -lt 32 ]; do
	(j=0; while [ $j -lt 10 ]; do $NB "$BQ" -a -d >/dev/null 2>&1; j=$((j + 1)); done) &
	pids="$pids $!"
	p=$((p + 1))
done
t=$(ms "$BQ" -a)
"$BQ" -a >/dev/null
rc=$?
for q in $pids; do wait "$q"; done
echo "# root's bq -a during 32 parallel listings by nobody: $t ms"
[ $rc -eq 0 ] && [ "$t" -lt 10000 ]
ok $? "root's bq answers while nobody lists in 32 parallel loops ($t ms)"

# ---- min_free_disk: only root submits on a nearly full disk ----
"$BKILL" -u all 0 >/dev/null 2>&1
# The daemon frees space meanwhile (it removes the ended jobs' files a few
# a turn): a submission taken while more than 8 MB was free again is
# cancelled and the disk filled once more, up to five times.
tries=0
while :; do
	avail=$(df -k --output=avail "$FS" | tail -1)
	if [ "$avail" -gt 6144 ]; then
		fallocate -l $(((avail - 6144) * 1024)) "$FS/filler.$tries" 2>/dev/null ||
			dd if=/dev/zero of="$FS/filler.$tries" bs=1024 count=$((avail - 6144)) \
				2>/dev/null
	fi
	$NB "$BSUB" -n 1 -t 1:00 ./j.sh >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -ne 0 ] || [ "$(df -k --output=avail "$FS" | tail -1)" -lt 8192 ] ||
		[ $tries -ge 5 ] && break
	echo "# space was freed under the test: filled again"
	"$BKILL" -u all 0 >/dev/null 2>&1
	tries=$((tries + 1))
done
[ $rc -ne 0 ] && grep -q "disk is nearly full: .* under min_free_disk 8.0 MiB" "$TMP/err"
ok $? "6 MB free, under min_free_disk 8M (and over the 4 MB at which the reserve is given back): nobody is refused: $(cat "$TMP/err")"
"$BSUB" -n 1 -t 1:00 ./j.sh >/dev/null 2>&1
ok $? "  root still submits"
rm -f "$FS"/filler.*
$NB "$BSUB" -n 1 -t 1:00 ./j.sh >/dev/null 2>&1
ok $? "  space freed: nobody submits again, with nothing restarted"
kill -0 "$DPID"
ok $? "  the daemon ran on throughout"
done_testing
