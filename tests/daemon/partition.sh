# A partition given as a node list; the database remembers its partition.
. "$BF_TOP/tests/lib.sh"

cd "$TMP" || exit 1
start_daemon --nodes 'a[01-03],b7' --policy easy
ok $? "the daemon starts on a named partition"
printf '#!/bin/sh\necho "$BSUB_NODES"\n' >nodes.sh
"$BSUB" -n 4 -t 10s nodes.sh >/dev/null && wait_state 1 done && grep -q "^a01 a02 a03 b7$" bsub-1.out
ok $? "a job on all of it sees the nodes by name"
"$BQ" --nodes | grep -q "^a\[01-03\],b7 *free"
ok $? "bq --nodes names them"
stop_daemon
"$BF_BUILD/backfilld" --foreground --socket "$TMP/s.sock" --db "$TMP/state.db" \
	--spool "$TMP/spool" --nodes 4 >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q "belongs to the partition a\[01-03\],b7" "$TMP/out"
ok $? "another --nodes on the same database is refused, naming both"
"$BF_BUILD/backfilld" --foreground --socket "$TMP/s2.sock" --db "$TMP/other.db" \
	--spool "$TMP/spool2" --nodes 'x[1-3],x2' >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "x2" "$TMP/out"
ok $? "a node list naming a node twice is a usage error (exit 2)"
done_testing
