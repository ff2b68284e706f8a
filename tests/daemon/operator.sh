# The operator's walk from backfilld(8), SYSTEMD, "From installing to a
# restart", end to end: the example configuration at
# /etc/backfilld/backfilld.yaml (read without --config), the tmpfiles.d
# entry, the socket unit's socket passed by systemd-socket-activate with a
# NOTIFY_SOCKET and a journal that the test owns, an ordinary user who
# submits with no environment at all, a reload of a changed file, and a
# stop and a restart while the job runs on.
#
# It runs in a private mount namespace: /etc and /var are overlays whose
# changes land in the test's directory, /run a tmpfs, so the system's own
# paths are used without touching the system.
. "$BF_TOP/tests/lib.sh"

ACTIVATE=/usr/bin/systemd-socket-activate
TMPFILES=/usr/bin/systemd-tmpfiles
STEPS="check-config socket ready submitted journal-user reload-applied reload-limit stopping
kept-running found-again ended journal-life user-daemon"

skip_all() {
	for t in $STEPS; do skip_check "operator: $t" "$1"; done
	done_testing
	exit 0
}

[ -x "$ACTIVATE" ] && [ -x "$TMPFILES" ] || skip_all "systemd-socket-activate or systemd-tmpfiles missing (Debian package systemd)"
unshare -m --propagation private true 2>/dev/null || skip_all "no private mount namespace here (unshare -m)"
cd "$TMP" || exit 1
chmod 755 "$TMP"
mkdir -p eu ew vu vw nb
chown nobody:nogroup nb
printf '#!/bin/sh\necho $$ >job.pid\nsleep 12\necho finished\n' >nb/job.sh
chmod 755 nb/job.sh

cat >walk.sh <<'EOF'
set -u
cd "$TMP" || exit 1
dpid= npid= jpid= upid=
# Whatever happens, nothing this walk started outlives it.
trap 'for p in $upid $dpid $npid $jpid; do kill "$p" 2>/dev/null; done' EXIT
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$TMP/eu,workdir=$TMP/ew" /etc || exit 3
mount -t overlay overlay -o "lowerdir=/var,upperdir=$TMP/vu,workdir=$TMP/vw" /var || exit 3
mount -t tmpfs -o mode=0755,size=8m tmpfs /run || exit 3
# The overlay shows the system's own state (a backfilld installed and run
# here): the walk's database and spool start empty, on tmpfs of their own
# (roomier than min_free_disk, or nobody could not submit).
mkdir -p /var/lib/backfilld /var/spool/backfilld || exit 3
mount -t tmpfs -o mode=0700,size=256m tmpfs /var/lib/backfilld || exit 3
mount -t tmpfs -o mode=0711,size=256m tmpfs /var/spool/backfilld || exit 3
"$TMPFILES" --create "$BF_TOP/systemd/backfilld.tmpfiles" || exit 3
mkdir -p /run/systemd/journal
"$DGRAM" /run/systemd/journal/socket "$TMP/journal.out" 120 &
jpid=$!
i=0
while [ ! -S /run/systemd/journal/socket ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done

# The operator edits the example: four nodes, conservative.
mkdir -p /etc/backfilld
sed 's/^nodes: .*/nodes: node[001-004]/; s/^policy: .*/policy: conservative/' \
	"$BF_TOP/etc/backfilld.yaml" >/etc/backfilld/backfilld.yaml
"$BFD" --check-config >check.out 2>&1
echo $? >check.rc

NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups env -i PATH=/usr/bin:/bin"
SOCK=/run/backfilld/backfilld.sock
ARGS=$(sed -n 's/^ExecStart=[^ ]*//p' "$BF_TOP/systemd/backfilld.service")
: >stderr.log
# start: the socket unit listens; the first client starts the service.
start() {
	rm -f "$SOCK"	# (systemd would keep its socket open across the restart)
	(umask 0; exec "$ACTIVATE" -l "$SOCK" -E NOTIFY_SOCKET="$TMP/notify.sock" \
		-E JOURNAL_STREAM="$(stat -c '%d:%i' "$TMP/stderr.log")" \
		"$BFD" $ARGS 2>>"$TMP/stderr.log") &
	dpid=$!
	i=0
	while [ ! -S "$SOCK" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	chmod 666 "$SOCK"	# the unit's SocketMode= (systemd-socket-activate has none)
}
"$DGRAM" "$TMP/notify.sock" "$TMP/notify.out" 120 &
npid=$!
i=0
while [ ! -S "$TMP/notify.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
start
stat -c %a "$SOCK" >sock.mode

# An ordinary user, no environment: bsub finds the daemon by itself.
(cd nb && $NOBODY "$BSUB" -n 1 -t 2m job.sh >"$TMP/bsub.out" 2>&1)
i=0
while ! $NOBODY "$BQ" -l 1 2>/dev/null | grep -q '^State: *running' && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1)); done

# A changed file, reloaded (ExecReload sends SIGHUP).
sed -i 's/^# *max_nodes:.*/max_nodes: 2/' /etc/backfilld/backfilld.yaml
grep -q '^max_nodes: 2' /etc/backfilld/backfilld.yaml || echo 'max_nodes: 2' >>/etc/backfilld/backfilld.yaml
kill -HUP $dpid
i=0
while ! grep -q 'reload: .* applied' journal.out && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
(cd nb && $NOBODY "$BSUB" -n 3 -t 1m job.sh >"$TMP/bsub3.out" 2>&1)

# systemctl stop (KillMode=process: SIGTERM to the daemon alone).
kill -TERM $dpid
wait $dpid
i=0
while [ ! -s nb/job.pid ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$(cat nb/job.pid)" 2>/dev/null; then echo yes; else echo no; fi >kept.out
# systemctl start again: the job is found again and ends by itself.
start
$NOBODY "$BQ" >/dev/null 2>&1
i=0
while ! $NOBODY "$BQ" -l 1 2>/dev/null | grep -q '^State: *done' && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1)); done
$NOBODY "$BQ" -l 1 >bq1.out 2>&1
kill -TERM $dpid
wait $dpid
# A user's own daemon (make run) keeps to its own paths, not the system's file.
$NOBODY "$BFD" --foreground --socket "$TMP/nb/u.sock" --db "$TMP/nb/u.db" \
	--spool "$TMP/nb/u-spool" >nbd.log 2>&1 &
upid=$!
i=0
while ! grep -q "listening on" nbd.log && kill -0 $upid 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1)); done
kill -TERM $upid
wait $upid
kill $npid $jpid
wait $npid $jpid 2>/dev/null
exit 0
EOF

TMP="$TMP" BF_TOP="$BF_TOP" DGRAM="$BF_BUILD/tests/bf_dgram" BFD="$BF_BUILD/backfilld" \
	BSUB="$BSUB" BQ="$BQ" ACTIVATE="$ACTIVATE" TMPFILES="$TMPFILES" \
	unshare -m --propagation private sh walk.sh
r=$?
[ "$r" -eq 3 ] && skip_all "overlay or tmpfs mounts are refused in a private mount namespace"

# entry PATTERN: the journal entry (its fields, one per line) whose MESSAGE matches.
entry() {
	awk -v p="$1" '/^-- pid/{if (e ~ p) print e; e=""; next} {e=e $0 "\n"}
	     END{if (e ~ p) print e}' journal.out
}
[ "$(cat check.rc)" = 0 ] && grep -q "^/etc/backfilld/backfilld.yaml: valid" check.out
ok $? "backfilld --check-config checks /etc/backfilld/backfilld.yaml: $(cat check.out)"
[ "$(cat sock.mode)" = 666 ]
ok $? "the socket unit's socket at /run/backfilld (made by the tmpfiles.d entry), mode $(cat sock.mode)"
grep -q '^READY=1$' notify.out && grep -q '^STATUS=' notify.out
ok $? "the service told READY=1 and its STATUS="
grep -q '^Job 1 submitted' bsub.out
ok $? "nobody, with an empty environment, submits through the system socket: $(head -1 bsub.out)"
entry 'MESSAGE=job 1: submitted' | grep -q '^JOB_USER=nobody$'
ok $? "the journal has the submission, with JOB_USER=nobody"
entry 'MESSAGE=reload: /etc/backfilld/backfilld.yaml applied' | grep -q '^PRIORITY=6$'
ok $? "a reload of the changed file is in the journal"
grep -q "max_nodes" bsub3.out
ok $? "and its new limit refuses a 3-node job: $(cat bsub3.out)"
grep -q '^STOPPING=1$' notify.out
ok $? "the stop told STOPPING=1"
[ "$(cat kept.out)" = yes ]
ok $? "the job ran on while the service was stopped"
entry 'MESSAGE=job 1: running, found again' | grep -q '^JOB_ID=1$'
ok $? "the restarted service found it again (in the journal)"
grep -q '^State: *done' bq1.out && grep -q '^finished$' nb/bsub-1.out
ok $? "and it ended by itself: $(grep '^State' bq1.out)"
life=0
for m in "submitted" "started on node" "ended: done, exit 0"; do
	entry "MESSAGE=job 1: $m" | grep -q '^JOB_ID=1$' || { echo "# no '$m' in the journal"; life=1; }
done
[ "$life" -eq 0 ]
ok $? "the journal holds job 1's whole life under JOB_ID=1"
grep -q "not reading /etc/backfilld/backfilld.yaml: it is the system daemon's" nbd.log &&
	grep -q "listening on $TMP/nb/u.sock: 16 nodes, easy" nbd.log
ok $? "a user's own daemon does not read the system's file, and says so"
done_testing
