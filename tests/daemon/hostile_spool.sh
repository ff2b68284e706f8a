# A local user against the spool (issue 23, items 2 and 3), as nobody
# against a root daemon: their spooled script is root's and read-only, so
# they cannot grow it and fill the spool's file system; and a new job is
# made durable on its own (its script and directory entries synced), so a
# user writing a lot on that file system does not slow another user's
# bsub. Measured: root's bsub latency with and without nobody's writer,
# the daemon's RSS and the spool's disk use.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP"
NB="setpriv --reuid=nobody --regid=nogroup --clear-groups"
OTHER="setpriv --reuid=12345 --regid=12345 --clear-groups"	# a third user
SPOOL="$TMP/spool"
W=

id_of() { sed -n 's/^Job \([0-9]*\) submitted.*/\1/p'; }
spool_kb() { du -sk "$SPOOL" | cut -f1; }
stop_writer() {
	[ -n "$W" ] && kill "$W" 2>/dev/null && wait "$W" 2>/dev/null
	W=
}
trap 'stop_writer; cleanup_daemon' EXIT

mkdir u && chown nobody:nogroup u
printf '#!/bin/sh\nsleep "${1:-0}"\n' >u/job.sh
printf '#!/bin/sh\necho "$0 $(id -u)"\n' >u/who.sh
printf '#!/bin/sh\nexit 0\n' >quick.sh
chmod 755 u/job.sh u/who.sh quick.sh

start_daemon --nodes 1 --policy conservative --kill-grace 1
ok $? "a root daemon starts on a spool with ACLs"
[ ! -e "$SPOOL/jobs/acl.probe" ]
ok $? "its probe of the spool's ACLs left nothing behind"

# ---- item 2: the spooled script is root's, read-only ----
cd u
out=$($NB "$BSUB" -n 1 -t 1:00 job.sh 60) && a=$(echo "$out" | id_of)
out=$($NB "$BSUB" -n 1 -t 1:00 -o who.out who.sh) && b=$(echo "$out" | id_of)
cd "$TMP"
S="$SPOOL/jobs/$b/script"
[ -n "$a" ] && [ -n "$b" ] && wait_state "$a" running && wait_state "$b" queued
ok $? "nobody's job $a runs, its job $b waits"
[ "$(stat -c '%U %G %a' "$S")" = "root root 550" ]
ok $? "the waiting job's script is root's, 0550 with an ACL ($(stat -c '%U %G %a' "$S"))"
size=$(stat -c %s "$S")
$NB cat "$S" >/dev/null
ok $? "its owner can read it"
$OTHER cat "$S" >/dev/null 2>&1
[ $? -ne 0 ]
ok $? "another user cannot"
$NB sh -c "echo grown >>'$S'" 2>/dev/null ||
	$NB sh -c "dd if=/dev/zero of='$S' bs=1M count=8 conv=notrunc" 2>/dev/null ||
	$NB truncate -s 1G "$S" 2>/dev/null || $NB truncate -s 0 "$S" 2>/dev/null
[ $? -ne 0 ] && [ "$(stat -c %s "$S")" = "$size" ]
ok $? "its owner cannot append to it, write it, grow or truncate it (still $size bytes)"
$NB chmod 700 "$S" 2>/dev/null || $NB chown nobody "$S" 2>/dev/null
[ $? -ne 0 ] && [ "$(stat -c '%U %a' "$S")" = "root 550" ]
ok $? "nor chmod or chown it"
$NB mv "$S" "$S.x" 2>/dev/null || $NB rm -f "$S" 2>/dev/null ||
	$NB sh -c "echo x >'$SPOOL/jobs/$b/script2'" 2>/dev/null
[ $? -ne 0 ] && [ -f "$S" ] && [ ! -e "$S.x" ]
ok $? "nor rename, remove or replace it, nor add a file beside it"
if [ "$(cat /proc/sys/fs/protected_hardlinks 2>/dev/null)" = 1 ]; then
	$NB ln "$S" u/hard 2>/dev/null
	[ $? -ne 0 ]
	ok $? "nor give it a second name (fs.protected_hardlinks)"
fi
"$BKILL" "$a" >/dev/null && wait_state "$b" done 15
ok $? "once job $a is cancelled, job $b runs as its owner and ends done"
[ "$(cat u/who.out)" = "$S 65534" ]
ok $? "its \$0 is the script's real path, and it ran as nobody ($(cat u/who.out))"

# ---- a script made the old way (the owner's, 0700) still runs, taken back ----
cd u
out=$($NB "$BSUB" -n 1 -t 1:00 job.sh 60) && c=$(echo "$out" | id_of)
out=$($NB "$BSUB" -n 1 -t 1:00 -o old.out who.sh) && e=$(echo "$out" | id_of)
cd "$TMP"
wait_state "$c" running && wait_state "$e" queued
stop_daemon KILL
S="$SPOOL/jobs/$e/script"
cp "$S" old && rm -f "$S" && install -o nobody -g nogroup -m 700 old "$S"
[ "$(stat -c '%U %a' "$S")" = "nobody 700" ]
ok $? "job $e's script replaced by one made the old way (nobody's, 0700)"
start_daemon --nodes 1 --policy conservative --kill-grace 1
ok $? "the daemon restarts"
[ "$(stat -c '%U %G %a' "$S")" = "root root 550" ] && ! $NB sh -c "echo x >>'$S'" 2>/dev/null
ok $? "the restart took it back: root's, 0550, not writable by its owner"
"$BKILL" "$c" >/dev/null && wait_state "$e" done 15 && [ "$(cat u/old.out)" = "$S 65534" ]
ok $? "job $e runs it as nobody and ends done ($(cat u/old.out))"

# ---- item 3: another user's bsub while nobody writes on the spool's file system ----
# lat N: "median MS max MS" of N bsub by root (each bounded by 10 s).
lat() {
	i=0
	while [ $i -lt "$1" ]; do
		s=$(date +%s%N)
		timeout 10 "$BSUB" -n 1 -t 10s ./quick.sh >/dev/null || echo 99999
		e=$(date +%s%N)
		echo $(((e - s) / 1000000))
		i=$((i + 1))
	done | sort -n | awk '{ a[NR] = $1 } END { print "median", a[int((NR + 1) / 2)], "max", a[NR] }'
}
idle=$(lat 20)
echo "# root's bsub, idle: $idle ms; daemon RSS $(rss_kb) KiB, spool $(spool_kb) KiB"
# nobody rewrites 300 MiB again and again on the spool's file system.
$NB sh -c 'while :; do dd if=/dev/zero of=u/big bs=1M count=300 conv=notrunc 2>/dev/null; done' &
W=$!
sleep 2
busy=$(lat 20)
echo "# root's bsub, with nobody writing 300 MiB in a loop: $busy ms; daemon RSS $(rss_kb) KiB," \
	"spool $(spool_kb) KiB"
# What the daemon syncs for a submission, counted: its own jobs' files
# (fsync, and SQLite's fdatasync), never the whole file system (syncfs,
# sync), which would wait for nobody's writer. strace follows every thread
# of the daemon, and every child it forks, while root submits 5 jobs.
if strace_on "$DPID" "$TMP/sync.trace" syncfs,sync,fsync,fdatasync; then
	for k in 1 2 3 4 5; do timeout 10 "$BSUB" -n 1 -t 10s ./quick.sh >/dev/null; done
	sleep 0.5
	strace_off
	whole=$(grep -cE '(^|[[:space:]])(syncfs|sync)\(' sync.trace)
	own=$(grep -cE '(^|[[:space:]])(fsync|fdatasync)\(' sync.trace)
	[ "$whole" -eq 0 ] && [ "$own" -gt 0 ]
	ok $? "5 submissions synced their own files ($own fsync/fdatasync), never the file system ($whole syncfs/sync)"
else
	skip_check whole-fs-sync "$STRACE_SKIP"
fi
stop_writer
rm -f u/big
max=$(echo "$busy" | awk '{ print $4 }')
[ "$max" -lt 10000 ]
ok $? "every bsub is answered while nobody writes (max $max ms; a hang detector, not a timing)"
[ "$(rss_kb)" -lt 65536 ]
ok $? "the daemon's RSS stays under 64 MiB ($(rss_kb) KiB)"
[ "$(spool_kb)" -lt 1024 ]
ok $? "the spool holds under 1 MiB ($(spool_kb) KiB)"
"$BQ" -a >/dev/null
ok $? "the daemon keeps answering"
done_testing
