# The daemon protects its state and its users: no file but a socket is
# removed, one daemon per database and spool, a daemon that is not root
# serves only its own user, and ended jobs leave no spool behind.
. "$BF_TOP/tests/lib.sh"

cd "$TMP" || exit 1
echo precious >notasocket
"$BF_BUILD/backfilld" --foreground --socket "$TMP/notasocket" --db "$TMP/a.db" \
	--spool "$TMP/a" >out 2>&1
[ $? -eq 1 ] && grep -q "is not a socket" out && grep -q precious notasocket
ok $? "a --socket path holding a file is refused, and the file is left alone"

start_daemon --nodes 2
ok $? "a daemon starts"
"$BF_BUILD/backfilld" --foreground --socket "$TMP/other.sock" --db "$TMP/state.db" \
	--spool "$TMP/spool" --nodes 2 >out 2>&1
[ $? -eq 1 ] && grep -q "another backfilld is using it" out
ok $? "a second daemon on the same database and spool is refused"

printf '#!/bin/sh\nexit 0\n' >quick.sh
"$BSUB" -n 1 -t 10s quick.sh >/dev/null && wait_state 1 done
i=0; while [ -d "$TMP/spool/jobs/1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ ! -d "$TMP/spool/jobs/1" ] && [ ! -e "$TMP/spool/status/1.status" ]
ok $? "an ended job's script, host file and records are removed"
stop_daemon

# A daemon running as nobody: its socket is its own, and it refuses others.
chmod 755 "$TMP" && mkdir "$TMP/nb" && chown nobody:nogroup "$TMP/nb"
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
$AS_NOBODY "$BF_BUILD/backfilld" --foreground --socket "$TMP/nb/s.sock" --db "$TMP/nb/state.db" \
	--spool "$TMP/nb/spool" --nodes 2 >"$TMP/nb.log" 2>&1 &
NBPID=$!
i=0; while [ ! -S "$TMP/nb/s.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(stat -c %a "$TMP/nb/s.sock")" = 600 ]
ok $? "a daemon that is not root makes its socket its owner's alone"
$AS_NOBODY "$BQ" --socket "$TMP/nb/s.sock" >/dev/null
ok $? "its own user is served"
"$BQ" --socket "$TMP/nb/s.sock" >out 2>&1
[ $? -eq 1 ] && grep -q "serves only that user" out
ok $? "another user who reaches it (root) is refused"
grep -q "not running as root: every job runs as uid 65534" "$TMP/nb.log"
ok $? "it says at start that every job runs as its user"
kill "$NBPID"; wait "$NBPID"
done_testing
