#!/bin/sh
# Job arrays (bsub -J "name[SPEC]%K", LSF's syntax): one submission, an
# element per index with LSB_JOBINDEX and %I; bq shows the array as one
# line with counts by state, bq -A and bq -l "ID[3]" its elements; at most
# K elements run at once, and under conservative every element has a
# guarantee, kept; bkill "ID[3]" cancels one, bkill ID the rest;
# dependencies on an array (done(ID): every element) and on one element
# (done("ID[3]")); bsub -K waits for every element; a kill -9 and a restart
# keep the array; its spool goes with its last element; bad specs refused.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP"
# An element: notes how many of its array run (marker files), waits for
# its go file (or 300 s), exits with the code its index asks for.
cat >el.sh <<'EOF'
#!/bin/sh
touch "$1/run.$LSB_JOBINDEX"
ls "$1" | grep -c '^run\.' >"$1/seen.$LSB_JOBINDEX"
echo "index=$LSB_JOBINDEX array=$LSB_JOBID name=$LSB_JOBNAME"
i=0
while [ ! -e "$1/go" ] && [ ! -e "$1/go.$LSB_JOBINDEX" ] && [ $i -lt 3000 ]; do
	sleep 0.1; i=$((i + 1))
done
rm -f "$1/run.$LSB_JOBINDEX"
exit 0
EOF
chmod 755 el.sh
sub() { "$BSUB" "$@" | sed -n 's/^Job \([0-9]*\) .*/\1/p'; }
counts() { "$BQ" -l "$1" | sed -n 's/^Elements: *//p'; }

start_daemon --nodes 4 --policy conservative --kill-grace 5 || exit 1

# ---- an array with a cap ----
mkdir a
"$BSUB" -n 1 -t 1:00 -J "sweep[1-9:2,10]%2" -o "$TMP/a/out.%J.%I" ./el.sh "$TMP/a" >out
a=$(sed -n 's/^Job \([0-9]*\) .*/\1/p' out)
[ -n "$a" ] && grep -q "an array of 6 elements" out
ok $? "bsub -J 'sweep[1-9:2,10]%2': one submission (job $a), and bsub says how many elements"
i2=0; while [ "$(ls a | grep -c '^run\.')" -lt 2 ] && [ $i2 -lt 100 ]; do sleep 0.1; i2=$((i2 + 1)); done
"$BQ" >out
grep -q "^ *$a .*sweep\[1-9:2,+ *array " out && grep -q "^Array $a: 4 queued, 2 running" out &&
	"$BQ" -w | grep -q "^ *$a .*sweep\[1-9:2,10\]%2 *array "
ok $? "bq: the array is one line (its name cut at 13, whole with -w), with its elements by state ($(grep "^Array $a" out))"
"$BQ" -A | grep -c "^ *$a\[[0-9]*\] " | grep -qx 6
ok $? "bq -A: one line per element, named ID[INDEX]"
"$BQ" -A | grep -q "^ *$a\[10\] .* queued "
ok $? "the indices are those of the spec (1 3 5 7 9 10)"
"$BQ" "$a" | grep -c "^ *$a\[[0-9]*\] " | grep -qx 6
ok $? "bq ID of an array: its elements, a line each"
"$BQ" -l "$a[5]" | grep -q "^Job: *$a\[5\] (job id $((a + 2)))"
ok $? "bq -l \"ID[5]\" shows the element"
"$BQ" -l "$a[7]" | grep -q "^Pending reason: *at most 2 elements of its array run at once (%2): it waits for an earlier one to end"
ok $? "an element behind the cap says so ($("$BQ" -l "$a[7]" | sed -n 's/^Pending reason: *//p'))"
g7=$("$BQ" -l "$a[7]" --json | sed -n 's/.*"start_us":\([0-9]*\).*"start_kind":"guaranteed".*/\1/p')
[ -n "$g7" ]
ok $? "conservative: an element behind the cap has a guaranteed start ($g7)"
for k in 1 3 5 7 9 10; do touch "a/go.$k"; sleep 0.3; done
wait_state "$a" "done" 30
ok $? "every element ran: the array is done ($(counts "$a"))"
most=$(cat a/seen.* | sort -n | tail -1)
[ "$most" -le 2 ]
ok $? "at most 2 elements ran at once (most seen: $most)"
grep -q "index=7 array=$a name=sweep\[7\]" "a/out.$a.7"
ok $? "LSB_JOBINDEX, LSB_JOBID (the array's) and LSB_JOBNAME, and %J.%I in -o"
grep -q "guarantee broken" daemon.log
[ $? -ne 0 ]
ok $? "no element's guarantee was broken"
[ ! -e "$TMP/spool/jobs/$a" ]
ok $? "the array's spool went with its last element"
"$BQ" -l "$a" --json | grep -q '"state":"done"' && "$BQ" -l "$a" | grep -q "^Elements: *6 done"
ok $? "an ended array's line comes from the store: done, 6 done"

# ---- bkill: one element, then the rest ----
mkdir b
b=$(sub -n 1 -t 1:00 -J "b[1-5]%1" -o /dev/null ./el.sh "$TMP/b")
"$BKILL" "$b[3]" | grep -q "cancelled"
ok $? "bkill \"ID[3]\" cancels that element"
[ "$("$BQ" -l "$b[3]" | sed -n 's/^State: *//p')" = cancelled ] &&
	[ "$("$BQ" -l "$b[4]" | sed -n 's/^State: *//p')" = queued ]
ok $? "and only it ($("$BQ" -l "$b[3]" | sed -n 's/^State: *//p') $("$BQ" -l "$b[4]" | sed -n 's/^State: *//p'))"
"$BKILL" "$b" >/dev/null
wait_state "$b[1]" cancelled 2>/dev/null
counts "$b" | grep -q "5 cancelled"
ok $? "bkill ID cancels every element left ($(counts "$b"))"

# ---- bstop and bresume of an array: every element waiting ----
mkdir h
hh=$(sub -n 1 -t 1:00 -J "h[1-4]%1" -o /dev/null ./el.sh "$TMP/h")
wait_state "$hh[1]" running
"$BF_BUILD/bstop" "$hh" >/dev/null
counts "$hh" | grep -q "3 held, 1 running"
ok $? "bstop ID holds every element of the array that waits ($(counts "$hh"))"
"$BF_BUILD/bresume" "$hh" >/dev/null
counts "$hh" | grep -q "3 queued, 1 running"
ok $? "bresume ID releases them ($(counts "$hh"))"
touch h/go
wait_state "$hh" done 30
most=$(cat h/seen.* | sort -n | tail -1)
[ "$most" -le 1 ]
ok $? "and the cap of 1 still holds after the release (most seen: $most)"

# ---- one element held and released: it goes behind its lane ----
mkdir e
e=$(sub -n 1 -t 1:00 -J "e[1-3]%1" -o /dev/null ./el.sh "$TMP/e")
wait_state "$e[1]" running
"$BF_BUILD/bstop" "$e[2]" >/dev/null 2>&1 || "$BF_BUILD/bstop" $((e + 1)) >/dev/null
"$BF_BUILD/bresume" $((e + 1)) >/dev/null
touch e/go.1
wait_state "$e[3]" running
[ "$("$BQ" -l "$e[2]" | sed -n 's/^State: *//p')" = queued ]
ok $? "an element held and released waits behind the others of its lane: the cap of 1 holds"
touch e/go
wait_state "$e" done 30
most=$(cat e/seen.* | sort -n | tail -1)
[ "$most" -le 1 ]
ok $? "at most 1 element ran at once (most seen: $most)"

# ---- bkill: an element that is not there, and bkill 0 ----
mkdir f
f=$(sub -n 1 -t 1:00 -J "f[1-3]" -o /dev/null ./el.sh "$TMP/f")
"$BKILL" "$f[99]" "$f[3]" >out 2>&1
frc=$?
[ "$frc" -eq 1 ] && wait_state "$f[3]" cancelled
ok $? "bkill of a missing element and a real one: the real one is cancelled, exit 1 ($(tr '\n' ' ' <out))"
"$BKILL" 0 >/dev/null
wait_state "$f[1]" cancelled && wait_state "$f[2]" cancelled
ok $? "bkill 0 cancels the live elements of your arrays"
"$BQ" -l "$f" >out
grep -q "^User: *$(id -un)" out && grep -q "^Nodes: *1 each" out && grep -q "^State: *exit" out
ok $? "bq -l of an ended array: its user, nodes and state from the store"

# ---- dependencies on an array ----
mkdir c d1 d2
c=$(sub -n 1 -t 1:00 -J "c[1-3]" -o /dev/null ./el.sh "$TMP/c")
d1=$(sub -n 1 -t 1:00 -o /dev/null -w "done($c)" ./el.sh "$TMP/d1")
d2=$(sub -n 1 -t 1:00 -o /dev/null -w "done(\"$c[2]\")" ./el.sh "$TMP/d2")
touch c/go.2
wait_state "$d2" running
ok $? "done(\"ID[2]\") starts when element 2 is done"
[ "$(job_state "$d1")" = queued ]
ok $? "done(ID) waits while other elements run"
touch c/go d1/go d2/go
wait_state "$d1" "running\|done"
ok $? "done(ID) starts once every element is done"

"$BSUB" -n 1 -t 1:00 -J "n[1-2]" -w "done($a) && exit($a)" ./el.sh x >out 2>&1
[ $? -ne 0 ] && grep -q "can never be met" out
ok $? "an array whose condition can never be met is refused, as a job is ($(head -1 out))"

# ---- bsub -K on an array ----
mkdir k
( "$BSUB" -K -n 1 -t 1:00 -J "k[1-2]" -o /dev/null ./el.sh "$TMP/k" >k.out 2>&1; echo $? >k.rc ) &
wait_file() { i3=0; while [ ! -e "$1" ] && [ $i3 -lt 300 ]; do sleep 0.1; i3=$((i3 + 1)); done; }
wait_file k/run.1
touch k/go
wait_file k.rc
[ "$(cat k.rc)" = 0 ] && grep -q "Job is finished" k.out
ok $? "bsub -K waits for every element and exits 0 when all are done ($(cat k.rc 2>/dev/null): $(tr '\n' ' ' <k.out))"

# ---- a restart keeps the array ----
mkdir r
r=$(sub -n 1 -t 1:00 -J "r[1-4]%2" -o /dev/null ./el.sh "$TMP/r")
wait_state "$r[1]" running
g3=$("$BQ" -l "$r[3]" --json | sed -n 's/.*"start_us":\([0-9]*\).*"start_kind":"guaranteed".*/\1/p')
touch r/go.1
wait_state "$r[1]" done
stop_daemon KILL
start_daemon --nodes 4 --policy conservative --kill-grace 5 || exit 1
g3b=$("$BQ" -l "$r[3]" --json | sed -n 's/.*"start_us":\([0-9]*\).*"start_kind":"\(guaranteed\|actual\)".*/\1/p')
counts "$r" | grep -q "1 done" && [ -n "$g3b" ] && [ "$g3b" -le "$g3" ]
ok $? "after a kill -9: the array, its counts ($(counts "$r")) and its guarantees ($g3 -> $g3b)"
touch r/go
wait_state "$r" done 30
ok $? "and its elements run to the end after it"

# ---- refusals ----
"$BSUB" -n 1 -t 1:00 -J "z[5-2]" ./el.sh x >out 2>&1
[ $? -ne 0 ] && grep -q "bsub: -J: at column" out
ok $? "a bad spec is refused with its column ($(head -1 out))"
"$BSUB" -n 1 -t 1:00 -J "z[1-200000]" ./el.sh x >out 2>&1
[ $? -ne 0 ] && grep -q "at most 100000" out
ok $? "an array over the daemon's size is refused ($(head -1 out))"
n1=$(sub -n 1 -t 1:00 -o /dev/null sh -c '[ -d / ] && exit 0')
[ -n "$n1" ] && wait_state "$n1" done && [ "$("$BQ" -l "$n1" | sed -n 's/^Name: *//p')" = "sh -c [ -d / ] && exit 0" ]
ok $? "a command whose words hold brackets is one job, named by its words"
stop_daemon
done_testing
