# The store fails while serving (here: the database cannot grow past a
# file size limit): the clients waiting for that commit are told, the
# daemon exits with 75, and a restart has every job it acknowledged.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

printf '#!/bin/sh\nexit 0\n' >job.sh
# Under a 256 KiB file size limit (ulimit -f counts 512-byte blocks) (the daemon ignores SIGXFSZ, so writes
# past it fail with EFBIG). Its log goes to a file it does not write into.
(ulimit -f 512; exec "$BF_BUILD/backfilld" --foreground --socket "$TMP/s.sock" \
	--db "$TMP/state.db" --spool "$TMP/spool" --nodes 1) 2>"$TMP/daemon.log" &
DPID=$!
i=0
while [ $i -lt 100 ] && ! "$BQ" >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
"$BSUB" -n 1 -t 1:00 job.sh >/dev/null
ok $? "the daemon runs under a file size limit"

# Submit (each waits behind a long first job) until one is refused.
printf '#!/bin/sh\nsleep 300\n' >long.sh
: >acked
k=0 rc=0
while [ $k -lt 5000 ]; do
	out=$("$BSUB" -n 1 -t 1:00 -J "a-fairly-long-job-name-to-fill-the-store-$k" long.sh 2>&1)
	rc=$?
	[ $rc -eq 0 ] || break
	echo "$out" | sed -n 's/^Job \([0-9]*\) submitted.*/\1/p' >>acked
	k=$((k + 1))
done
[ $rc -eq 1 ] && echo "$out" | grep -q "could not store the change"
ok $? "after $k acknowledged submissions one is refused: the client is told why ($rc: $out)"
wait "$DPID"
st=$?
DPID=
[ $st -eq 75 ]
ok $? "the daemon exits with status 75 ($st)"
grep -q "the store failed" "$TMP/daemon.log"
ok $? "and logs why"

refused=$(( $(sort -n acked | tail -1) + 1 ))
[ -d "$TMP/spool/jobs/$refused" ]
ok $? "the refused submission (id $refused) left its directory in the spool"
start_daemon --nodes 1
ok $? "it starts again, without the limit"
[ ! -e "$TMP/spool/jobs/$refused" ]
ok $? "the restart swept it"
out=$("$BSUB" -n 1 -t 1:00 job.sh) && next=$(echo "$out" | sed -n 's/^Job \([0-9]*\) submitted.*/\1/p')
[ -n "$next" ] && [ "$next" -gt "$refused" ]
ok $? "and never hands its id out again (next: $next)"
missing=0
for id in $(cat acked); do
	"$BQ" -l "$id" >/dev/null 2>&1 || missing=$((missing + 1))
done
[ -s acked ] && [ $missing -eq 0 ]
ok $? "every acknowledged job is there ($(wc -l <acked) jobs, $missing missing)"
done_testing
