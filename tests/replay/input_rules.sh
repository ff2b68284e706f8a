# The replay's input rules, errors and options, on small hand-made traces.
. "$BF_TOP/tests/lib.sh"

job() {	# job NUM SUBMIT RUN ALLOC REQPROCS REQTIME
	echo "$1 $2 -1 $3 $4 -1 -1 $5 $6 -1 1 1 1 -1 -1 -1 -1 -1"
}

# One job of each skip reason, a killed job and two good ones.
{
	echo "; MaxNodes: 8"
	echo "; MaxProcs: 10"
	job 1 0 100 -1 -1 200		# no size at all
	job 2 0 -1 4 4 200		# runtime unknown
	job 3 -5 100 4 4 200		# negative submit
	job 4 0 100 4 4 99999999999	# estimate past 100 years
	job 5 0 100 11 11 200		# larger than the machine (10 procs)
	job 6 10 300 2 -1 100		# size from field 5; runs past its estimate
	job 7 20 50 2 2 -1		# no estimate: uses the runtime
	job 8 30 40 9 10 100		# size 10 (field 8 wins over field 5)
} >"$TMP/rules.swf"
"$BFD" --replay "$TMP/rules.swf" --format json --jobs-out "$TMP/rules.out" >"$TMP/r.json" 2>"$TMP/err"
ok $? "hand-made trace replays"
for k in no_size no_runtime bad_submit bad_time too_large; do
	grep -q "\"$k\": 1" "$TMP/r.json"
	ok $? "skip reason $k counted once"
done
[ "$(json_num "$TMP/r.json" jobs_simulated)" -eq 3 ] && [ "$(json_num "$TMP/r.json" jobs_read)" -eq 8 ]
ok $? "8 read, 3 simulated"
[ "$(json_num "$TMP/r.json" nodes)" -eq 10 ] && grep -q '"nodes_source": "MaxProcs"' "$TMP/r.json"
ok $? "machine size from MaxProcs over MaxNodes"
[ "$(json_num "$TMP/r.json" killed)" -eq 1 ]
ok $? "the job past its estimate is counted as killed"
awk '$1 == 6 { exit !($4 == 100) }' "$TMP/rules.out"
ok $? "its run time is cut at the estimate (100) in --jobs-out"
awk '$1 == 8 { exit !($3 == 80) }' "$TMP/rules.out"
ok $? "job 8 (all 10 nodes) waits until job 6 is killed at 110 (wait 80 s)"
"$BFD" --replay "$TMP/rules.swf" | grep -q 'estimate = field 9 if > 0, else the runtime'
ok $? "the text report states the input rules"

# Same instant: an end frees nodes for an arrival at that very instant.
{ echo "; MaxProcs: 4"; job 1 0 100 4 4 100; job 2 100 10 4 4 10; } >"$TMP/inst.swf"
"$BFD" --replay "$TMP/inst.swf" --jobs-out "$TMP/inst.out" >/dev/null
awk '$1 == 2 { exit !($3 == 0) }' "$TMP/inst.out"
ok $? "ends before arrivals at the same instant (job 2 waits 0 s)"

# Settled conservative compression: when job 2 ends at 5, job 4 moves up
# to 5, and a second pass moves job 3 from 20 to 15, into what job 4 left
# (one pass left it at 20, an instant no end marks, for which the replay had
# to wake itself: --check says every job started by its guarantee).
{ echo "; MaxProcs: 2"; job 1 0 10 1 1 10; job 2 0 5 1 1 20; job 3 0 10 2 2 10; job 4 0 10 1 1 10; } >"$TMP/due.swf"
"$BFD" --replay "$TMP/due.swf" --policy conservative --check --jobs-out "$TMP/due.out" >/dev/null
ok $? "a reservation due after the last end: replay runs clean"
awk '$1 == 3 { w3 = $3 } $1 == 4 { w4 = $3 } END { exit !(w3 == 15 && w4 == 5) }' "$TMP/due.out"
ok $? "job 4 moves up to 5, then job 3 to 15 (settled compression)"

# An unsorted trace is sorted by submit time (stably) and counted.
{ echo "; MaxProcs: 4"; job 1 50 10 4 4 10; job 2 0 10 4 4 10; job 3 50 10 4 4 10; } >"$TMP/unsorted.swf"
"$BFD" --replay "$TMP/unsorted.swf" --format json --jobs-out "$TMP/u.out" >"$TMP/u.json"
[ "$(json_num "$TMP/u.json" reordered)" -eq 1 ]
ok $? "an out-of-order line is counted as reordered"
awk '$1 == 1 { w1 = $3 } $1 == 3 { w3 = $3 } END { exit !(w1 == 0 && w3 == 10) }' "$TMP/u.out"
ok $? "equal submit times keep file order (job 1 before job 3)"
[ "$(grep -vc '^;' "$TMP/u.out")" -eq 3 ] && awk '!/^;/ { print $1 }' "$TMP/u.out" | tr '\n' ' ' | grep -q '^1 2 3 $'
ok $? "--jobs-out is in input order"

# Malformed lines: every one reported with file:line, nothing simulated.
{
	echo "; MaxProcs: 4"
	job 1 0 10 1 1 10
	echo "2 5 -1 10 1"
	job 3 6 10 1 1 10
	echo "4 x -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1"
	echo "5 7 -1 1.5 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1"
} >"$TMP/bad.swf"
"$BFD" --replay "$TMP/bad.swf" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ]
ok $? "malformed lines fail the replay (exit 1)"
grep -q "bad.swf:3: expected 18 fields, found 5" "$TMP/err" &&
grep -q "bad.swf:5:.*field 2" "$TMP/err" && grep -q "bad.swf:6:.*field 4" "$TMP/err"
ok $? "each malformed line is reported as file:line: reason"
[ ! -s "$TMP/out" ]
ok $? "no report when the trace is malformed"
"$BFD" --replay "$TMP/bad.swf" --lenient --format json >"$TMP/l.json" 2>"$TMP/err"
ok $? "--lenient replays the rest"
grep -q '"malformed": 3' "$TMP/l.json" && [ "$(json_num "$TMP/l.json" jobs_simulated)" -eq 2 ]
ok $? "--lenient counts the 3 malformed lines as skipped"

# A file that is not a trace at all (its first job line is not one): one
# line, not one per line and a hint to --lenient.
"$BFD" --replay "$BF_TOP/README.md" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	grep -q "^backfilld: not an SWF trace: .*README.md:1: expected 18 fields" "$TMP/err" && [ ! -s "$TMP/out" ]
ok $? "a README: one line, not an SWF trace ($(cat "$TMP/err"))"
printf '\211PNG\r\n\032\n\000\000\000\rIHDR\n' >"$TMP/x.png"
"$BFD" --replay "$TMP/x.png" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^backfilld: not an SWF trace: .*x.png:1: " "$TMP/err"
ok $? "a PNG: one line, not an SWF trace"
"$BFD" --replay "$BF_TOP/README.md" --lenient >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	grep -q "README.md: not an SWF trace: none of its [0-9]* lines that are not comments is a job" "$TMP/err"
ok $? "  with --lenient: none of its lines is a job, said once"

# A gzip trace reads the same as the plain one; "-" reads stdin.
gzip -c "$TMP/rules.swf" >"$TMP/rules.swf.gz"
"$BFD" --replay "$TMP/rules.swf.gz" --jobs-out "$TMP/gz.out" >/dev/null &&
	cmp -s "$TMP/rules.out" "$TMP/gz.out"
ok $? "a gzip trace gives the same result"
"$BFD" --replay - --format json <"$TMP/rules.swf" | grep -q '"jobs_simulated": 3'
ok $? "--replay - reads standard input"

# Machine size: no header needs --nodes.
{ job 1 0 10 2 2 10; } >"$TMP/nohdr.swf"
"$BFD" --replay "$TMP/nohdr.swf" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q -- "--nodes" "$TMP/err"
ok $? "no MaxProcs/MaxNodes: exit 1, asks for --nodes"
"$BFD" --replay "$TMP/nohdr.swf" --nodes 4 --format json | grep -q '"nodes_source": "--nodes"'
ok $? "--nodes gives the size and the report says so"

# Usage errors exit 2 with a message; --help and --version exit 0.
for args in "--policy sjf" "--nodes 0" "--nodes 12x" "--format xml" "--bogus" "extra" \
            "--socket /tmp/x" "--foreground"; do
	# shellcheck disable=SC2086
	"$BFD" --replay "$TMP/rules.swf" $args >/dev/null 2>"$TMP/err"
	[ $? -eq 2 ] && [ -s "$TMP/err" ]
	ok $? "usage error '$args': exit 2 with a message"
done
"$BFD" --check --foreground >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- "--check goes with --replay" "$TMP/err"
ok $? "a replay option without --replay: exit 2"
"$BFD" --help | grep -q -- '--jobs-out' && "$BFD" --version | grep -q '^backfilld '
ok $? "--help and --version"
"$BFD" --replay "$TMP/missing.swf" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "missing.swf" "$TMP/err"
ok $? "a missing trace: exit 1 naming the file"

# The project's own sample trace (make run) replays clean under every policy.
sh "$BF_TOP/mk/sample-trace.sh" >"$TMP/sample.swf"
# A bad option: one line saying which, one pointing to --help; not the page.
"$BFD" --bogus >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(cat "$TMP/err")" = "backfilld: unknown option '--bogus'
Try 'backfilld --help' for more information." ] && [ ! -s "$TMP/out" ]
ok $? "an unknown option: two lines on stderr, exit 2"
"$BFD" --replay "$TMP/sample.swf" --policy 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "^backfilld: option --policy needs a value$" "$TMP/err"
ok $? "an option without its value is named as typed (--policy, not -p)"
for p in fcfs easy conservative; do
	"$BFD" --replay "$TMP/sample.swf" --policy "$p" --check >/dev/null
	ok $? "sample trace, $p, --check"
done
done_testing
