#!/bin/sh
# make clean-state: removes the database directory and the spool that a
# daemon used, and refuses (removing nothing) while the daemon still runs
# on them. Hermetic: STATE_DIRS points it at the test's own directories.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
case $BF_BUILD in
"$BF_TOP"/*) BUILD=${BF_BUILD#"$BF_TOP"/} ;;
*) BUILD=$BF_BUILD ;;
esac
mkdir -p lib
"$BF_BUILD/backfilld" --foreground --nodes 2 --socket "$TMP/cs.sock" --db "$TMP/lib/state.db" \
	--spool "$TMP/spool" >>daemon.log 2>&1 &
DPID=$!
wait_file "$TMP/cs.sock"
[ -S "$TMP/cs.sock" ] && [ -f lib/state.db ] && [ -d spool ]
ok $? "a daemon runs on lib/state.db and spool"

cs() {
	make -C "$BF_TOP" --no-print-directory BUILD="$BUILD" STATE_DIRS="$TMP/lib $TMP/spool" \
		clean-state >out 2>err
}
cs
rc=$?
[ $rc -ne 0 ] && [ -f lib/state.db ] && [ -d spool ] && grep -q "lib is in use" err &&
	grep -q "pid $DPID (backfilld)" err
ok $? "clean-state while the daemon runs: refused, nothing removed, its pid named (rc $rc)"

stop_daemon
cs
rc=$?
[ $rc -eq 0 ] && [ ! -e lib ] && [ ! -e spool ] && grep -q "removed $TMP/lib" out
ok $? "clean-state once it stopped: both removed (rc $rc)"
cs
ok $? "clean-state with nothing left: nothing to do, no error"
done_testing
