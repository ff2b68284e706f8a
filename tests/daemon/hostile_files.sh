# A local user against a root daemon's files, and crashes at the worst
# moments for them: links planted where the daemon writes, leftovers of a
# failed submission, state files others could read, a supervisor that was
# forked but had not recorded itself when the daemon died, the spool
# removed under a running daemon, a database that cannot be written.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP"
NB="setpriv --reuid=nobody --regid=nogroup --clear-groups"
SPOOL="$TMP/spool"

# mode_owner PATH: "MODE USER" as stat shows them.
mode_owner() { stat -c '%a %U' "$1" 2>/dev/null; }
# id_of OUTPUT: the id bsub printed.
id_of() { sed -n 's/^Job \([0-9]*\) submitted.*/\1/p'; }

mkdir "$TMP/u" && chown nobody:nogroup "$TMP/u"
printf '#!/bin/sh\nsleep "${1:-0}"\n' >"$TMP/u/job.sh"
printf '#!/bin/sh\necho "$BSUB_JOBID $$" >>%s/u/ran; sleep "${1:-0}"\n' "$TMP" >"$TMP/u/count.sh"
chmod 755 "$TMP/u/job.sh" "$TMP/u/count.sh"
touch "$TMP/u/ran" && chown nobody "$TMP/u/ran"

# ---- the state is root's alone, whatever the umask ----
umask 000
start_daemon --nodes 2 --policy conservative --kill-grace 1
ok $? "a daemon starts under umask 000"
umask 022
st=$(for f in "$TMP/state.db" "$TMP/state.db-wal" "$TMP/state.db-shm"; do stat -c %a "$f"; done | sort -u)
[ "$st" = 600 ]
ok $? "state.db, its WAL and SHM are 0600 (found: $(echo $st))"
[ "$(mode_owner "$SPOOL")" = "711 root" ] && [ "$(mode_owner "$SPOOL/status")" = "700 root" ] &&
	[ "$(mode_owner "$SPOOL/jobs")" = "711 root" ]
ok $? "the spool is root's: top and jobs 0711 (traverse only), status 0700"
$NB cat "$TMP/state.db" >/dev/null 2>&1
[ $? -ne 0 ]
ok $? "nobody cannot read the database"

# ---- root through the host file (finding 1) ----
cd "$TMP/u"
out=$($NB "$BSUB" -n 2 -t 1:00 job.sh 30) && a=$(echo "$out" | id_of)	# holds both nodes
out=$($NB "$BSUB" -n 1 -t 10s job.sh 0) && b=$(echo "$out" | id_of)	# waits
cd "$TMP"
[ -n "$a" ] && [ -n "$b" ] && wait_state "$a" running
ok $? "nobody's job $a holds the partition; its job $b waits"
[ "$(mode_owner "$SPOOL/jobs/$b")" = "711 root" ] && [ "$(mode_owner "$SPOOL/jobs/$b/script")" = "550 root" ]
ok $? "the waiting job's directory is root's (0711), and so is its script (0550, nobody's through an ACL: hostile_spool.sh)"
$NB ln -s /etc/passwd "$SPOOL/jobs/$b/hostfile" 2>/dev/null ||
	$NB sh -c "echo x >'$SPOOL/jobs/$b/planted'" 2>/dev/null
[ $? -ne 0 ] && [ ! -e "$SPOOL/jobs/$b/hostfile" ] && [ ! -e "$SPOOL/jobs/$b/planted" ]
ok $? "nobody cannot plant a link or a file in the job's directory"
$NB ls "$SPOOL/jobs" >/dev/null 2>&1
[ $? -ne 0 ]
ok $? "nobody cannot list the spool's jobs"
# Had the directory been writable (the old layout), a link would be there:
# the supervisor must neither follow it nor hand its target over.
echo "root's secret" >"$TMP/secret" && chmod 600 "$TMP/secret"
ln -s "$TMP/secret" "$SPOOL/jobs/$b/hostfile"
"$BKILL" "$a" >/dev/null && wait_state "$b" "running\|done" 10 && wait_state "$b" done 10
ok $? "job $b starts once job $a is cancelled, and ends"
[ "$(cat "$TMP/secret")" = "root's secret" ] && [ "$(mode_owner "$TMP/secret")" = "600 root" ]
ok $? "a link planted as the host file was not followed: its target is unchanged and root's"

# Output paths are opened by the job as its owner: a root file named as
# -o, or a link to it, stays root's and unchanged. bsub refuses such a
# path at once (as the user, access(2)), but that is a courtesy: a user
# can plant the links after it looked (or bypass bsub), so the jobs are
# held by a dependency while they are planted.
out=$(cd "$TMP/u" && $NB "$BSUB" -n 1 -t 10s -o "$TMP/secret" job.sh 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q -- "-o $TMP/secret: you cannot write it"
ok $? "bsub -o naming a root file: refused at submission ($out)"
blk=$(cd "$TMP/u" && $NB "$BSUB" -n 1 -t 1:00 job.sh 300 | id_of)
o2=$(cd "$TMP/u" && $NB "$BSUB" -n 1 -t 10s -w "ended($blk)" -o "$TMP/u/link.out" job.sh | id_of)
o3=$(cd "$TMP/u" && $NB "$BSUB" -n 1 -t 10s -w "ended($blk)" -o "$TMP/u/hard.out" job.sh | id_of)
ln -s "$TMP/secret" "$TMP/u/link.out" && chown -h nobody "$TMP/u/link.out"
# A hard link too, where the kernel allows it (fs.protected_hardlinks=0).
$NB ln "$TMP/secret" "$TMP/u/hard.out" 2>/dev/null || ln "$TMP/secret" "$TMP/u/hard.out"
$NB "$BKILL" "$blk" >/dev/null
wait_state "$o2" failed 10 && wait_state "$o3" failed 10 &&
	[ "$(cat "$TMP/secret")" = "root's secret" ] && [ "$(mode_owner "$TMP/secret")" = "600 root" ]
ok $? "-o naming a symbolic or hard link to a root file, planted after bsub: the jobs fail to open it, it is unchanged"

# ---- ids after a failed submission (finding 2) ----
next=$((o3 + 1))
mkdir "$SPOOL/jobs/$next" && printf 'evil\n' >"$SPOOL/jobs/$next/script" &&
	chmod 777 "$SPOOL/jobs/$next/script" && chown -R nobody "$SPOOL/jobs/$next"
out=$("$BSUB" -n 1 -t 10s "$TMP/u/job.sh" 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q "exists already; it is never reused" &&
	[ "$(cat "$SPOOL/jobs/$next/script")" = evil ]
ok $? "a job directory that exists is refused, not adopted ($out)"
stop_daemon KILL
start_daemon --nodes 2 --policy conservative --kill-grace 1
ok $? "the daemon restarts"
[ ! -e "$SPOOL/jobs/$next" ]
ok $? "the restart swept the leftover directory $next"
out=$("$BSUB" -n 1 -t 10s "$TMP/u/job.sh") && c=$(echo "$out" | id_of)
[ -n "$c" ] && [ "$c" -gt "$next" ]
ok $? "and the next id ($c) is above the swept one ($next): ids are never reused"
wait_state "$c" done 10
# A leftover the store never heard of (a commit that failed, the daemon
# killed): its id is above every stored one and must not be handed out.
stop_daemon KILL
left=$((c + 5))
mkdir "$SPOOL/jobs/$left" && echo evil >"$SPOOL/jobs/$left/script" && chown -R nobody "$SPOOL/jobs/$left"
start_daemon --nodes 2 --policy conservative --kill-grace 1
out=$("$BSUB" -n 1 -t 10s "$TMP/u/job.sh") && d=$(echo "$out" | id_of)
[ ! -e "$SPOOL/jobs/$left" ] && [ -n "$d" ] && [ "$d" -gt "$left" ]
ok $? "a leftover above every stored id ($left) is swept, and its id is not reused (next: $d)"
wait_state "$d" done 10

# ---- a supervisor forked, not yet recorded, when the daemon dies (finding 8) ----
stop_daemon
cd "$TMP/u"	# nobody's jobs write their output here
BACKFILLD_TEST_SUP_DELAY_MS=6500 start_daemon --nodes 2 --policy conservative --kill-grace 1
out=$($NB "$BSUB" -n 1 -t 1:00 "$TMP/u/count.sh" 2 2>&1) && e=$(echo "$out" | id_of)
wait_state "$e" running 5
stop_daemon KILL
[ ! -e "$SPOOL/status/$e.sup" ]
ok $? "job $e: the daemon died after the fork, before the supervisor recorded itself"
start_daemon --nodes 2 --policy conservative --kill-grace 1
wait_state "$e" done 20
ok $? "after the restart job $e is found (its start lock, held 6.5 s), adopted, and ends done"
sleep 1
[ "$(grep -c "^$e " "$TMP/u/ran")" -eq 1 ]
ok $? "it ran exactly once ($(grep -c "^$e " "$TMP/u/ran") runs)"
grep -q "job $e: running, found again" "$TMP/daemon.log"
ok $? "the daemon says it found it again"

# ---- the status records removed while the daemon was down ----
out=$($NB "$BSUB" -n 1 -t 1:00 "$TMP/u/count.sh" 3) && h=$(echo "$out" | id_of)
wait_state "$h" running 5 && sleep 0.5
stop_daemon KILL
rm -rf "$SPOOL/status"
start_daemon --nodes 2 --policy conservative --kill-grace 1
wait_state "$h" done 15 && grep -q "job $h: running, found again" "$TMP/daemon.log"
ok $? "job $h, whose records were removed, is found through its processes and ends done"
sleep 0.5
[ "$(grep -c "^$h " "$TMP/u/ran")" -eq 1 ]
ok $? "it ran exactly once ($(grep -c "^$h " "$TMP/u/ran") runs)"

# ---- the spool removed under a running daemon (finding 9) ----
out=$($NB "$BSUB" -n 2 -t 1:00 "$TMP/u/count.sh" 2) && f=$(echo "$out" | id_of)
out=$($NB "$BSUB" -n 2 -t 1:00 "$TMP/u/count.sh" 0) && g=$(echo "$out" | id_of)
wait_state "$f" running 5
# (running in bq is the plan's word: wait until its script has run)
i=0
while [ $i -lt 50 ] && ! grep -q "^$f " "$TMP/u/ran" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
rm -rf "$SPOOL"
out=$("$BSUB" -n 1 -t 10s "$TMP/u/job.sh" 2>&1)
[ $? -eq 1 ] && echo "$out" | grep -q "spool .* was removed or replaced"
ok $? "with the spool gone, a submission is refused with a clear error ($out)"
wait_state "$f" failed 10 && "$BQ" -l "$f" | grep -q "^Reason: *lost: the spool was removed while it ran"
ok $? "job $f, which ran to its end, is marked lost, not failed for a wrong reason"
wait_state "$g" failed 10 && "$BQ" -l "$g" | grep -q "^Reason: *not started: the spool was removed"
ok $? "the waiting job $g is not started, and says why"
"$BQ" -a >/dev/null
ok $? "the daemon keeps answering"
grep -q "was removed or replaced while the daemon ran" "$TMP/daemon.log"
ok $? "and logs it"
stop_daemon KILL
start_daemon --nodes 2 --policy conservative --kill-grace 1
ok $? "it restarts with a new spool"
cd "$TMP"
grep -q "is not the one this database used" "$TMP/daemon.log"
ok $? "and says the spool was replaced"
[ "$(grep -c "^$f " "$TMP/u/ran")" -eq 1 ] && [ "$(grep -c "^$g " "$TMP/u/ran")" -eq 0 ]
ok $? "no job ran again: $f once, $g never"
"$BQ" -l "$f" | grep -q "^State: *failed"
ok $? "job $f stays lost after the restart"

# ---- a database that cannot be written (finding 10) ----
stop_daemon
if chattr +i "$TMP/state.db" 2>/dev/null; then
	"$BF_BUILD/backfilld" --foreground --socket "$TMP/s.sock" --db "$TMP/state.db" \
		--spool "$SPOOL" --nodes 2 --policy conservative >ro.log 2>&1
	rc=$?
	chattr -i "$TMP/state.db"
	[ $rc -eq 1 ] && ! grep -q listening ro.log
	ok $? "an immutable database stops the start with 1, before listening ($rc: $(tail -1 ro.log))"
else
	echo "ok $((n = n + 1)) - # SKIP chattr +i is not supported on this file system"
fi
done_testing
