# systemd integration without systemd as PID 1: a test-owned NOTIFY_SOCKET
# (READY, STATUS, WATCHDOG, STOPPING), socket activation through
# systemd-socket-activate (and refusals of wrong descriptors), the units
# through systemd-analyze verify, and the journal backend through a
# test-owned journal socket in a private mount namespace.
. "$BF_TOP/tests/lib.sh"

DGRAM="$BF_BUILD/tests/bf_dgram"
ACTIVATE=/usr/bin/systemd-socket-activate
ANALYZE=/usr/bin/systemd-analyze
cd "$TMP" || exit 1
LPIDS=

# wait_grep FILE PATTERN [SECONDS]: until the file holds the pattern.
wait_grep() {
	i=0
	while [ $i -lt $((${3:-10} * 10)) ]; do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# listen NAME [PROBE]: a datagram listener at $TMP/NAME.sock writing
# $TMP/NAME.out (for 120 s at most); PROBE: the daemon's socket, tried at READY=1.
listen() {
	"$DGRAM" "$TMP/$1.sock" "$TMP/$1.out" 120 ${2:+"$2"} &
	LPIDS="$LPIDS $!"
	i=0
	while [ ! -S "$TMP/$1.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	: >>"$TMP/$1.out"
}

# until_gone PID [SECONDS]: wait for a process we started to exit; kill it
# (and fail) if it does not. Its exit status is in $rc.
until_gone() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt $((${2:-10} * 10)) ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		rc=999
		return 1
	fi
	wait "$1"
	rc=$?
	return 0
}

# statuses FILE: the STATUS= values in the order they were sent.
statuses() { sed -n 's/^STATUS=//p' "$1"; }

# wait_count FILE LINE N: until the file holds the whole line N times.
wait_count() {
	i=0
	while [ "$(grep -c -x -- "$2" "$1")" -lt "$3" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(grep -c -x -- "$2" "$1")" -eq "$3" ]
}

printf '#!/bin/sh\necho hi\n' >short.sh
printf '#!/bin/sh\nsleep 60\n' >long.sh

# ---- 1: READY, STATUS, STOPPING -------------------------------------------
listen notify "$TMP/s.sock"
export NOTIFY_SOCKET="$TMP/notify.sock"
start_daemon --nodes 4
ok $? "the daemon starts with NOTIFY_SOCKET set"
unset NOTIFY_SOCKET
wait_grep notify.out '^READY=1$'
ok $? "it sends READY=1"
sed -n '/^READY=1$/,$p' notify.out | grep -q '^probe: connected$'
ok $? "when READY=1 arrived (the daemon stopped there) its socket already took connections"
[ "$(sed -n 's/^-- pid //p' notify.out | sort -u)" = "$DPID" ]
ok $? "every notification comes from the daemon's own pid (NotifyAccess=main)"
grep -A1 '^READY=1$' notify.out | grep -q '^STATUS=0 running, 0 queued, 4 of 4 nodes free$'
ok $? "READY=1 comes with STATUS=0 running, 0 queued, 4 of 4 nodes free"

"$BSUB" -n 3 -t 5m long.sh >/dev/null	# job 1: runs
wait_grep notify.out '^STATUS=1 running, 0 queued, 1 of 4 nodes free$'
ok $? "a running job: STATUS=1 running, 0 queued, 1 of 4 nodes free"
"$BSUB" -n 2 -t 5m long.sh >/dev/null	# job 2: waits
wait_grep notify.out '^STATUS=1 running, 1 queued, 1 of 4 nodes free$'
ok $? "a waiting job: STATUS=1 running, 1 queued, 1 of 4 nodes free"
"$BQ" -a >/dev/null; "$BQ" -l 1 >/dev/null
ends="killed\|cancelled"
"$BKILL" 2 >/dev/null && wait_state 2 "$ends" && "$BKILL" 1 >/dev/null && wait_state 1 "$ends"
ok $? "both jobs are cancelled"
wait_count notify.out 'STATUS=0 running, 0 queued, 4 of 4 nodes free' 2
ok $? "the jobs gone: STATUS=0 running, 0 queued, 4 of 4 nodes free again (twice in all)"
[ -z "$(statuses notify.out | uniq -d)" ] && [ "$(statuses notify.out | wc -l)" -ge 4 ]
ok $? "STATUS= is sent only when it changed (reads and repeated commits send nothing)"
pid=$DPID
kill -TERM "$pid"
until_gone "$pid" 15 && [ "$rc" -eq 0 ]
ok $? "SIGTERM stops it with status 0 ($rc)"
DPID=
grep -q '^STOPPING=1$' notify.out && grep -A1 '^STOPPING=1$' notify.out | grep -q '^STATUS=stopping'
ok $? "it sends STOPPING=1 with a STATUS= that says so"
[ "$(sed -n '$p' notify.out | cut -c1-15)" = "STATUS=stopping" ]
ok $? "nothing follows STOPPING=1 (no STATUS= update during the stop)"
[ ! -e "$TMP/s.sock" ]
ok $? "the daemon's own socket is removed at its stop"

# ---- 2: WATCHDOG ----------------------------------------------------------
# Without --foreground: under a service manager (NOTIFY_SOCKET) it must not
# detach, or the manager would lose its main pid. WATCHDOG_PID is its own.
listen wd
NOTIFY_SOCKET="$TMP/wd.sock" WATCHDOG_USEC=200000 sh -c \
	'WATCHDOG_PID=$$; export WATCHDOG_PID; exec "$0" "$@"' "$BFD" --socket "$TMP/s.sock" \
	--db "$TMP/state.db" --spool "$TMP/spool" --nodes 4 >>"$TMP/daemon.log" 2>&1 &
DPID=$!
wait_grep wd.out '^READY=1$' && "$BQ" >/dev/null
ok $? "without --foreground, with NOTIFY_SOCKET: it starts and serves"
wait_grep wd.out '^WATCHDOG=1$' && i=0 &&
	while [ "$(grep -c '^WATCHDOG=1$' wd.out)" -lt 4 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(grep -c '^WATCHDOG=1$' wd.out)" -ge 4 ]
ok $? "WATCHDOG_USEC=200000: WATCHDOG=1 keeps coming ($(grep -c '^WATCHDOG=1$' wd.out) so far)"
kill -0 "$DPID" 2>/dev/null && [ "$(sed -n 's/^-- pid //p' wd.out | sort -u)" = "$DPID" ]
ok $? "it did not detach: the process started is the one that notifies"
grep -q "watchdog: a ping every 100 ms" daemon.log
ok $? "it logs the ping interval, half of WATCHDOG_USEC"
pid=$DPID; kill -TERM "$pid"; until_gone "$pid" 15; DPID=
ok $? "it stops on SIGTERM"

listen wd2
NOTIFY_SOCKET="$TMP/wd2.sock" WATCHDOG_USEC=100000 WATCHDOG_PID=1 "$BFD" --foreground \
	--socket "$TMP/s.sock" --db "$TMP/state.db" --spool "$TMP/spool" --nodes 4 >>"$TMP/daemon.log" 2>&1 &
DPID=$!
wait_grep wd2.out '^READY=1$' && "$BQ" >/dev/null && sleep 1
ok $? "with WATCHDOG_PID naming another process it starts too"
! grep -q '^WATCHDOG=1$' wd2.out
ok $? "and sends no WATCHDOG=1: the watchdog is that process's"
pid=$DPID; kill -TERM "$pid"; until_gone "$pid" 15; DPID=

NOTIFY_SOCKET="$TMP/wd2.sock" WATCHDOG_USEC=soon "$BFD" --foreground --socket "$TMP/s.sock" \
	--db "$TMP/state.db" --spool "$TMP/spool" --nodes 4 >wd3.log 2>&1 &
until_gone $! 10 && [ "$rc" -eq 1 ] && grep -q "WATCHDOG_USEC or WATCHDOG_PID is malformed" wd3.log
ok $? "a malformed WATCHDOG_USEC: it refuses to start and says why"

# ---- 3: socket activation -------------------------------------------------
if [ ! -x "$ACTIVATE" ]; then
	for t in "serves" "READY" "jobs" "mode" "stops" "kept" "probe" "file" "two" "datagram" "elsewhere"; do
		ok 0 "socket activation: $t # SKIP $ACTIVATE not installed (Debian package systemd)"
	done
else
	listen actn "$TMP/act.sock"
	"$ACTIVATE" -l "$TMP/act.sock" -E NOTIFY_SOCKET="$TMP/actn.sock" "$BFD" --foreground \
		--socket "$TMP/act.sock" --db "$TMP/act.db" --spool "$TMP/act-spool" --nodes 4 \
		>act.log 2>&1 &
	DPID=$!
	i=0
	while [ ! -S "$TMP/act.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	mode=$(stat -c %a "$TMP/act.sock")
	# The first connection makes systemd-socket-activate exec the daemon.
	BACKFILLD_SOCKET="$TMP/act.sock" "$BQ" >/dev/null 2>&1
	r1=$?
	[ "$r1" -eq 0 ] && grep -q "using the socket systemd passed" act.log
	ok $? "systemd-socket-activate hands the daemon its socket and bq is answered through it"
	wait_grep actn.out '^READY=1$' && sed -n '/^READY=1$/,$p' actn.out | grep -q '^probe: connected$'
	ok $? "READY=1 with an activated socket too, when it takes connections"
	BACKFILLD_SOCKET="$TMP/act.sock" "$BSUB" -n 1 -t 1m short.sh | grep -q "^Job 1 submitted" &&
		BACKFILLD_SOCKET="$TMP/act.sock" wait_state 1 done && grep -q '^hi$' bsub-1.out
	ok $? "bsub submits through it and the job runs"
	[ "$(stat -c %a "$TMP/act.sock")" = "$mode" ]
	ok $? "the daemon leaves the socket's mode to its owner ($mode, not its own 666)"
	pid=$DPID; kill -TERM "$pid"; until_gone "$pid" 15 && [ "$rc" -eq 0 ]
	ok $? "it stops on SIGTERM"
	DPID=
	[ -S "$TMP/act.sock" ]
	ok $? "and leaves the socket file, which is systemd's, in place"
	grep -q "another backfilld" act.log
	[ $? -ne 0 ]
	ok $? "its own socket was not mistaken for another daemon's"

	# A descriptor that is not a socket; two descriptors.
	sh -c 'exec 3<"$1"; LISTEN_PID=$$ LISTEN_FDS=1; export LISTEN_PID LISTEN_FDS
		shift; exec "$@"' sh long.sh "$BFD" --foreground --socket "$TMP/r1.sock" \
		--db "$TMP/r.db" --spool "$TMP/r-spool" --nodes 4 >r1.log 2>&1 &
	until_gone $! 10 && [ "$rc" -eq 1 ] && grep -q "not a listening Unix stream socket" r1.log &&
		[ ! -e "$TMP/r1.sock" ]
	ok $? "a file as the activated descriptor: refused, clearly, and no socket of its own either"
	sh -c 'exec 3<"$1" 4<"$1"; LISTEN_PID=$$ LISTEN_FDS=2; export LISTEN_PID LISTEN_FDS
		shift; exec "$@"' sh long.sh "$BFD" --foreground --socket "$TMP/r2.sock" \
		--db "$TMP/r.db" --spool "$TMP/r-spool" --nodes 4 >r2.log 2>&1 &
	until_gone $! 10 && [ "$rc" -eq 1 ] && grep -q "passed 2 descriptors; backfilld takes exactly one" r2.log
	ok $? "two activated descriptors: refused, clearly"
	# A datagram socket (woken by a datagram).
	"$ACTIVATE" -d -l "$TMP/dg.sock" "$BFD" --foreground --socket "$TMP/dg.sock" \
		--db "$TMP/r.db" --spool "$TMP/r-spool" --nodes 4 >r3.log 2>&1 &
	pid=$!
	i=0
	while [ ! -S "$TMP/dg.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	"$DGRAM" --send "$TMP/dg.sock" wake
	until_gone "$pid" 10 && [ "$rc" -eq 1 ] && grep -q "not a listening Unix stream socket" r3.log
	ok $? "a datagram socket: refused, clearly"
	# A stream socket bound elsewhere than --socket.
	"$ACTIVATE" -l "$TMP/other.sock" "$BFD" --foreground --socket "$TMP/r4.sock" \
		--db "$TMP/r.db" --spool "$TMP/r-spool" --nodes 4 >r4.log 2>&1 &
	pid=$!
	i=0
	while [ ! -S "$TMP/other.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	BACKFILLD_SOCKET="$TMP/other.sock" "$BQ" >/dev/null 2>&1
	until_gone "$pid" 10 && [ "$rc" -eq 1 ] &&
		grep -q "bound to '$TMP/other.sock', not to $TMP/r4.sock" r4.log
	ok $? "a socket bound elsewhere than --socket: refused, naming both paths"
fi

# ---- 4: the units ---------------------------------------------------------
if [ ! -x "$ANALYZE" ] || ! command -v man >/dev/null 2>&1; then
	for t in "ExecStart" "verify" "catches"; do
		ok 0 "units: $t # SKIP systemd-analyze or man not installed"
	done
else
	mkdir -p units man/man8 man/man5
	cp "$BF_TOP/man/backfilld.8" man/man8/ && cp "$BF_TOP/man/backfilld.yaml.5" man/man5/
	grep -q '^ExecStart=/usr/sbin/backfilld --foreground$' "$BF_TOP/systemd/backfilld.service"
	ok $? "the service runs /usr/sbin/backfilld --foreground (the packaged path)"
	# verify wants the binary to exist and the Documentation= pages to be
	# found: the built daemon, and the project's pages on MANPATH.
	cp "$BF_TOP/systemd/backfilld.socket" units/
	sed "s|^ExecStart=/usr/sbin/backfilld|ExecStart=$BFD|" "$BF_TOP/systemd/backfilld.service" \
		>units/backfilld.service
	out=$(cd units && MANPATH="$TMP/man" "$ANALYZE" verify backfilld.socket backfilld.service 2>&1)
	r=$?
	[ "$r" -eq 0 ] && [ -z "$out" ]
	ok $? "systemd-analyze verify passes on both units, without a warning"
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/#   /'
	sed 's/^KillMode=process/KillMode=processes/' units/backfilld.service >units/bad.service
	out=$(cd units && MANPATH="$TMP/man" "$ANALYZE" verify bad.service 2>&1)
	printf "%s\n" "$out" | grep -q "bad.service:[0-9]"
	ok $? "(and it does catch a mistake: a broken copy draws a warning)"
fi
sock=$(sed -n 's/^ListenStream=//p' "$BF_TOP/systemd/backfilld.socket")
"$BFD" --help | grep -q "root: $sock"
ok $? "backfilld.socket listens where the daemon looks as root ($sock)"

# ---- 5: the journal -------------------------------------------------------
# sd_journal_send writes to /run/systemd/journal/socket. A private mount
# namespace puts a test-owned listener there, so nothing reaches (or needs)
# a real journald.
cat >journal.sh <<'EOF'
set -u
cd "$TMP" || exit 1
if [ -d /run/systemd ]; then top=/run/systemd; else top=/run; fi
mount -t tmpfs -o mode=0755,size=1m tmpfs "$top" || exit 3
mkdir -p /run/systemd/journal || exit 3
"$DGRAM" /run/systemd/journal/socket "$TMP/journal.out" 60 &
lpid=$!
i=0
while [ ! -S /run/systemd/journal/socket ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
: >"$TMP/j-stderr.log"
# stderr is the stream JOURNAL_STREAM names: the journal backend.
JOURNAL_STREAM=$(stat -c '%d:%i' "$TMP/j-stderr.log") "$BFD" --foreground --socket "$TMP/j.sock" \
	--db "$TMP/j.db" --spool "$TMP/j-spool" --nodes 2 2>>"$TMP/j-stderr.log" &
dpid=$!
i=0
while ! BACKFILLD_SOCKET="$TMP/j.sock" "$BQ" >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
BACKFILLD_SOCKET="$TMP/j.sock" "$BSUB" -n 1 -t 1m short.sh >/dev/null
i=0
while ! BACKFILLD_SOCKET="$TMP/j.sock" "$BQ" -l 1 2>/dev/null | grep -q '^State: *done' &&
	[ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $dpid; wait $dpid
# A job found again after a crash: its lines keep their fields too.
jd() {
	JOURNAL_STREAM=$(stat -c '%d:%i' "$TMP/j-stderr.log") "$BFD" --foreground \
		--socket "$TMP/j.sock" --db "$TMP/j.db" --spool "$TMP/j-spool" --nodes 2 \
		2>>"$TMP/j-stderr.log" &
	dpid=$!
	i=0
	while ! BACKFILLD_SOCKET="$TMP/j.sock" "$BQ" >/dev/null 2>&1 && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1)); done
}
jd
BACKFILLD_SOCKET="$TMP/j.sock" "$BSUB" -n 1 -t 1m long.sh >/dev/null
i=0
while ! BACKFILLD_SOCKET="$TMP/j.sock" "$BQ" -l 2 2>/dev/null | grep -q '^State: *running' &&
	[ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL $dpid; wait $dpid
jd
# A broken guarantee: its times in words, their microseconds in fields.
# Job 3 (both nodes) is promised job 2's end; a drained node takes it away.
BACKFILLD_SOCKET="$TMP/j.sock" "$BSUB" -n 2 -t 1m long.sh >/dev/null
BACKFILLD_SOCKET="$TMP/j.sock" "$BCTL" drain \
	"$(BACKFILLD_SOCKET="$TMP/j.sock" "$BCTL" nodes | awk 'NR == 2 { print $1 }')" \
	--reason test >/dev/null
BACKFILLD_SOCKET="$TMP/j.sock" "$BKILL" 3 >/dev/null
BACKFILLD_SOCKET="$TMP/j.sock" "$BKILL" 2 >/dev/null
i=0
while ! BACKFILLD_SOCKET="$TMP/j.sock" "$BQ" -l 2 2>/dev/null | grep -q '^State: *cancelled' &&
	[ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $dpid; wait $dpid
# An invalid configuration: the refusal to start is the journal's, as errors.
printf 'nodes: 2\ncolour: blue\n' >"$TMP/j-bad.yaml"
JOURNAL_STREAM=$(stat -c '%d:%i' "$TMP/j-stderr.log") "$BFD" --foreground --config "$TMP/j-bad.yaml" \
	--socket "$TMP/j-bad.sock" --db "$TMP/j-bad.db" --spool "$TMP/j-bad-spool" \
	2>>"$TMP/j-stderr.log"
echo $? >"$TMP/j-bad.rc"
# JOURNAL_STREAM naming another file (stderr redirected): plain stderr.
: >"$TMP/j-other.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$TMP/journal.sh") "$BFD" --foreground --socket "$TMP/j.sock" \
	--db "$TMP/j.db" --spool "$TMP/j-spool" --nodes 2 2>>"$TMP/j-other.log" &
dpid=$!
i=0
while ! BACKFILLD_SOCKET="$TMP/j.sock" "$BQ" >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $dpid; wait $dpid
kill $lpid
exit 0
EOF
if ! unshare -m --propagation private true 2>/dev/null; then
	for t in "fields" "job" "found again" "broken guarantee" "start-up errors" "stderr" "other"; do
		ok 0 "journal: $t # SKIP no private mount namespace here (unshare -m) for a test journal socket"
	done
else
	TMP="$TMP" DGRAM="$DGRAM" BFD="$BFD" BQ="$BQ" BSUB="$BSUB" BKILL="$BKILL" \
		BCTL="$BF_BUILD/bctl" unshare -m --propagation private sh journal.sh
	r=$?
	if [ "$r" -eq 3 ]; then
		for t in "fields" "job" "found again" "broken guarantee" "start-up errors" "stderr" "other"; do
			ok 0 "journal: $t # SKIP cannot mount a tmpfs in a private mount namespace"
		done
	else
		# One entry: the lines from one "-- pid" header to the next.
		awk '/^-- pid/{if (e ~ /MESSAGE=listening on/) print e; e=""; next} {e=e $0 "\n"}
		     END{if (e ~ /MESSAGE=listening on/) print e}' journal.out >listen.entry
		grep -q '^PRIORITY=6$' listen.entry && grep -q '^SYSLOG_IDENTIFIER=backfilld$' listen.entry &&
			! grep -q '^CODE_FILE=' listen.entry && ! grep -q '^JOB_ID=' listen.entry
		ok $? "a log line reaches the journal with MESSAGE=, PRIORITY=6 and SYSLOG_IDENTIFIER=backfilld"
		me=$(id -un)
		awk '/^-- pid/{if (e ~ /MESSAGE=job 1:/) print e; e=""; next} {e=e $0 "\n"}
		     END{if (e ~ /MESSAGE=job 1:/) print e}' journal.out >job.entry
		njob=$(grep -c '^MESSAGE=job 1:' job.entry)
		[ "$njob" -ge 1 ] && [ "$(grep -c '^PRIORITY=[0-7]$' job.entry)" -eq "$njob" ] &&
			[ "$(grep -c '^JOB_ID=1$' job.entry)" -eq "$njob" ] &&
			[ "$(grep -c "^JOB_USER=$me\$" job.entry)" -eq "$njob" ]
		ok $? "each of job 1's $njob lines carries PRIORITY=, JOB_ID=1 and JOB_USER=$me"
		awk '/^-- pid/{if (e ~ /MESSAGE=job 2: running, found again/) print e; e=""; next}
		     {e=e $0 "\n"} END{if (e ~ /MESSAGE=job 2: running, found again/) print e}' \
			journal.out >found.entry
		grep -q '^PRIORITY=5$' found.entry && grep -q '^JOB_ID=2$' found.entry &&
			grep -q "^JOB_USER=$me\$" found.entry
		ok $? "a job found again after a crash: its line has JOB_ID=2 and JOB_USER=$me"
		awk '/^-- pid/{if (e ~ /MESSAGE=job 3: guarantee broken/) print e; e=""; next}
		     {e=e $0 "\n"} END{if (e ~ /MESSAGE=job 3: guarantee broken/) print e}' \
			journal.out >broken.entry
		grep -Eq '^MESSAGE=job 3: guarantee broken: start moved later from [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} to none' \
			broken.entry && grep -Eq '^GUARANTEE_FROM_US=[0-9]{16}$' broken.entry &&
			! grep -q '^GUARANTEE_TO_US=' broken.entry
		ok $? "a broken guarantee: the line gives the time in words, GUARANTEE_FROM_US= the microseconds ($(grep '^GUARANTEE' broken.entry | tr '\n' ' '))"
		[ "$(cat j-bad.rc)" = 1 ] &&
			grep -A2 "^MESSAGE=$TMP/j-bad.yaml:2:1: unknown key 'colour'" journal.out |
			grep -q '^PRIORITY=3$' &&
			grep -A2 "^MESSAGE=$TMP/j-bad.yaml: 1 error; not starting" journal.out |
			grep -q '^PRIORITY=3$'
		ok $? "an invalid configuration at start: each error reaches the journal as one (rc $(cat j-bad.rc))"
		! grep -q "listening on\|unknown key" j-stderr.log
		ok $? "what went to the journal is not written to stderr as well"
		grep -q "^backfilld: listening on $TMP/j.sock" j-other.log &&
			[ "$(grep -c '^MESSAGE=listening on' journal.out)" -eq 3 ]	# (3 runs above)
		ok $? "JOURNAL_STREAM naming another file than stderr: plain lines on stderr"
	fi
fi
if [ ! -S /run/systemd/journal/socket ]; then
	: >nojournal.log
	JOURNAL_STREAM=$(stat -c '%d:%i' nojournal.log) "$BFD" --foreground --socket "$TMP/s.sock" \
		--db "$TMP/state.db" --spool "$TMP/spool" --nodes 4 2>>nojournal.log &
	DPID=$!
	i=0
	while ! "$BQ" >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	pid=$DPID; kill -TERM "$pid"; until_gone "$pid" 15; DPID=
	grep -q "^backfilld: listening on $TMP/s.sock" nojournal.log
	ok $? "no journal to take the lines (no journald): they go to stderr, its stream"
else
	ok 0 "no journal: stderr # SKIP a journald runs here"
fi

for p in $LPIDS; do kill "$p" 2>/dev/null; done
done_testing
