# A local user's job against its own end, as nobody against a root daemon
# without cgroups (issue 23, items 8 and 10): children that leave the job's
# process group (setpgid(0,0)) or session (setsid) but keep its
# environment die with it, at its end and at bkill; the job's child is
# never attachable by its owner before it execs (it is a fork of the
# daemon: it holds every queued job's environment), even while held; -o
# naming a FIFO nobody reads fails the job at once; and jobs inherit no
# ignored signal (the daemon ignores SIGXFSZ). Measured: root's bsub and
# bq latency meanwhile, the daemon's RSS.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP"
NB="setpriv --reuid=nobody --regid=nogroup --clear-groups"

id_of() { sed -n 's/^Job \([0-9]*\) submitted.*/\1/p'; }
# ms COMMAND...: how long it took, in ms (its output dropped).
ms() {
	s=$(date +%s%N)
	timeout 10 "$@" >/dev/null 2>&1
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}
# alive PID: a live process (not gone, not a zombie).
alive() {
	[ -n "$1" ] && [ -r "/proc/$1/stat" ] &&
		[ "$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)" != Z ]
}
# gone PID...: every one of them dead within 5 s.
gone() {
	i=0
	while [ $i -lt 50 ]; do
		left=0
		for p in "$@"; do alive "$p" && left=1; done
		[ $left -eq 0 ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# Any process the test's jobs may have left: killed by pid on exit.
LEFT=
trap 'for p in $LEFT; do alive "$p" && kill -9 "$p"; done; cleanup_daemon' EXIT

mkdir u && chown nobody:nogroup u
# escape.sh TAG THEN: a child that makes its own process group (perl's
# setpgrp(0, 0) is setpgid(0,0)) and one its own session, both keeping the
# job's environment; their pids in TAG.pg and TAG.ss; then THEN.
cat >u/escape.sh <<'EOF'
#!/bin/sh
sh -c 'echo $$ >"$1.t"; mv "$1.t" "$1"; exec perl -e "setpgrp(0, 0); exec qw(sleep 300)"' x "$1.pg" &
setsid sh -c 'echo $$ >"$1.t"; mv "$1.t" "$1"; exec sleep 300' x "$1.ss" &
while [ ! -f "$1.pg" ] || [ ! -f "$1.ss" ]; do sleep 0.05; done
exec sh -c "$2"
EOF
printf '#!/bin/sh\ngrep "^Sig" /proc/$$/status\n' >u/sig.sh
printf '#!/bin/sh\nexit 0\n' >quick.sh
chmod 755 u/escape.sh u/sig.sh quick.sh

start_daemon --nodes 2 --policy conservative --kill-grace 1 --cgroup none
ok $? "a root daemon starts without cgroups (--cgroup none)"

# ---- item 8: processes that leave the job's group or session ----
cd u
out=$($NB "$BSUB" -n 1 -t 1:00 escape.sh end "exit 0") && a=$(echo "$out" | id_of)
cd "$TMP"
wait_file u/end.pg && wait_file u/end.ss
pg=$(cat u/end.pg) ss=$(cat u/end.ss)
LEFT="$LEFT $pg $ss"
wait_state "$a" done 10
ok $? "nobody's job $a forks a setpgid(0,0) child ($pg) and a setsid child ($ss), and ends"
gone "$pg" "$ss"
ok $? "at its end, neither child is alive"
cd u
out=$($NB "$BSUB" -n 1 -t 1:00 escape.sh kill "sleep 300") && b=$(echo "$out" | id_of)
cd "$TMP"
wait_file u/kill.pg && wait_file u/kill.ss
pg=$(cat u/kill.pg) ss=$(cat u/kill.ss)
LEFT="$LEFT $pg $ss"
alive "$pg" && alive "$ss"
ok $? "job $b runs, its two children alive ($pg, $ss)"
t=$(ms "$BSUB" -n 1 -t 10s ./quick.sh) q=$(ms "$BQ" -a)
echo "# root's bsub $t ms, bq -a $q ms while nobody's job runs; daemon RSS $(rss_kb) KiB"
"$BKILL" "$b" >/dev/null && wait_state "$b" "$ENDED" 10
ok $? "bkill ends job $b"
gone "$pg" "$ss"
ok $? "after bkill, neither child is alive"
grep -q "job $b: " "$TMP/daemon.log"
ok $? "and the daemon logged its end"

# ---- item 10: the job's child before exec, and its output files ----
cd u
out=$($NB "$BSUB" -n 1 -t 10s -o sig.out sig.sh) && c=$(echo "$out" | id_of)
cd "$TMP"
wait_state "$c" done 10 && wait_file u/sig.out
ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' u/sig.out)
# SIGXFSZ is 25: bit 24 of the mask (hex digit 7 from the right, value 1).
[ -n "$ign" ] && [ $((0x$ign >> 24 & 1)) -eq 0 ]
ok $? "the job does not ignore SIGXFSZ (SigIgn $ign), though the daemon does"
$NB mkfifo u/fifo
s=$(date +%s%N)
cd u
out=$($NB "$BSUB" -n 1 -t 1:00 -o fifo sig.sh) && d=$(echo "$out" | id_of)
cd "$TMP"
wait_state "$d" failed 10
ok $? "-o naming a FIFO nobody reads: job $d fails ($((($(date +%s%N) - s) / 1000000)) ms)"
"$BQ" -l "$d" | grep -q "^Reason: .*a FIFO with no reader"
ok $? "and says why ($("$BQ" -l "$d" | sed -n 's/^Reason: *//p'))"

# The job's child held (a test failpoint) once it is its owner's, before
# it opens anything: its owner cannot read its memory or environment.
stop_daemon
BACKFILLD_TEST_CHILD_DELAY_MS=4000 start_daemon --nodes 2 --policy conservative --cgroup none
cd u
out=$($NB "$BSUB" -n 1 -t 1:00 sig.sh) && e=$(echo "$out" | id_of)
cd "$TMP"
child=
i=0
while [ -z "$child" ] && [ $i -lt 50 ]; do
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = "bfd-job $e" ] &&
			[ "$(awk '/^Uid:/ { print $2 }' "$p/status" 2>/dev/null)" = 65534 ] &&
			child=${p#/proc/}
	done
	[ -n "$child" ] || sleep 0.1
	i=$((i + 1))
done
uids=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$child/status" 2>/dev/null)
[ -n "$child" ] && [ "$uids" = "65534 65534 65534 65534" ]
ok $? "job $e's child (pid $child), held before exec, is wholly nobody's (uids $uids)"
$NB cat "/proc/$child/environ" >/dev/null 2>&1
r1=$?
$NB head -c 1 "/proc/$child/mem" >/dev/null 2>&1
r2=$?
[ -n "$child" ] && [ $r1 -ne 0 ] && [ $r2 -ne 0 ]
ok $? "nobody can read its environment or its memory (fs.suid_dumpable=$(cat /proc/sys/fs/suid_dumpable))"
wait_state "$e" done 15
ok $? "then it runs and ends"
# Where fs.suid_dumpable is 0 the kernel makes the child not dumpable by
# itself when it changes uid; where it is 1 only the child's own
# PR_SET_DUMPABLE does. So the order is checked on the child's system
# calls, whatever this machine's setting: not dumpable while its saved uid
# is still root's, then wholly the owner's, then the exec.
e2=
if strace_on "$DPID" "$TMP/child.trace" setresuid,prctl,execve; then
	cd u
	out=$($NB "$BSUB" -n 1 -t 1:00 sig.sh) && e2=$(echo "$out" | id_of)
	cd "$TMP"
	wait_state "$e2" done 15
	strace_off
	# (strace pads a pid of under 5 digits: "1880  prctl(...)".)
	cp=$(sed -n 's/^\([0-9]*\)[[:space:]]*prctl(PR_SET_DUMPABLE, .*/\1/p' child.trace | head -1)
	order=$(sed -n "s/^$cp[[:space:]]*\(setresuid(65534, 65534, 0)\|prctl(PR_SET_DUMPABLE, SUID_DUMP_DISABLE)\|setresuid(65534, 65534, 65534)\|prctl(PR_GET_DUMPABLE)\|execve\).*/\1/p" child.trace |
		tr '\n' ' ')
	[ -n "$cp" ] && [ "$order" = "setresuid(65534, 65534, 0) prctl(PR_SET_DUMPABLE, SUID_DUMP_DISABLE) setresuid(65534, 65534, 65534) prctl(PR_GET_DUMPABLE) execve " ]
	ok $? "job $e2's child: saved uid root's, not dumpable, then wholly nobody's, checked, then the exec ($order)"
else
	skip_check child-not-dumpable "$STRACE_SKIP"
fi
"$BQ" -a >/dev/null && [ "$(rss_kb)" -lt 65536 ]
ok $? "the daemon keeps answering, its RSS under 64 MiB ($(rss_kb) KiB)"

# Without a cgroup a signal is passed on to the job's processes that left
# its process group; its own group gets it once, not twice.
stop_daemon
start_daemon --nodes 2 --policy conservative --cgroup none
printf '#!/bin/sh\ntrap "echo usr1 >>usr1.log" USR1\necho up >usr1.up\nwhile :; do sleep 0.1; done\n' >u/usr1.sh
chmod 755 u/usr1.sh
cd u
out=$($NB "$BSUB" -n 1 -t 1:00 ./usr1.sh) && f=$(echo "$out" | id_of)
cd "$TMP"
wait_state "$f" running 10 && wait_file u/usr1.up
$NB "$BKILL" -s USR1 "$f" >/dev/null
sleep 1
"$BKILL" "$f" >/dev/null
wait_state "$f" cancelled 15
[ "$(grep -c usr1 u/usr1.log 2>/dev/null)" = 1 ]
ok $? "bkill -s USR1 reaches the job's trap once ($(grep -c usr1 u/usr1.log 2>/dev/null) times)"

# Item 11: the job runs with its submitter's umask, which bsub sends: a
# user whose umask is 077 gets output, and files, only they can read.
printf '#!/bin/sh
echo hi
touch made.by.job
' >u/um.sh
chmod 755 u/um.sh
cd u
out=$($NB sh -c "umask 077; exec $BSUB -n 1 -t 1:00 -o um.out ./um.sh") && e=$(echo "$out" | id_of)
cd "$TMP"
wait_state "$e" done 15
[ "$(stat -c %a u/um.out 2>/dev/null)" = 600 ] && [ "$(stat -c %a u/made.by.job 2>/dev/null)" = 600 ]
ok $? "umask 077 at bsub: the job's output and files are 600 ($(stat -c %a u/um.out u/made.by.job 2>/dev/null | tr '\n' ' '))"
done_testing
