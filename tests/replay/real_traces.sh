# Full replays of real traces under every policy with --check (and under
# EASY and conservative with --per-event --check), determinism
# of --jobs-out, and the shape of the jobs-out file. KTH and NASA come with
# the project (traces/); CTC is read from ../shared/traces, and skipped,
# saying so, when that is absent.
. "$BF_TOP/tests/lib.sh"

traces="KTH-SP2-1996-2.1-cln NASA-iPSC-1993-3.1-cln CTC-SP2-1996-3.1-cln"
# Under the sanitizers the CTC runs are slow; KTH alone covers the code.
[ -n "${BACKFILLD_TEST_QUICK:-}" ] && traces="KTH-SP2-1996-2.1-cln"

for t in $traces; do
	f=$(trace "$t.swf.gz")
	if ! have_trace "$t.swf.gz"; then
		skip_check "$t: replays under every policy" "$f is not here (the large traces are in ../shared/traces beside the checkout)"
		continue
	fi
	for p in fcfs easy conservative; do
		"$BFD" --replay "$f" --policy "$p" --check --format json >"$TMP/r.json" 2>"$TMP/err"
		ok $? "$t $p: --check replay runs clean"
		[ -s "$TMP/err" ] && sed 's/^/# /' "$TMP/err"
		read_=$(json_num "$TMP/r.json" jobs_read)
		sim=$(json_num "$TMP/r.json" jobs_simulated)
		checks=$(json_num "$TMP/r.json" checks)
		[ "$sim" -gt 0 ] && [ "$checks" -gt "$sim" ]
		ok $? "$t $p: $sim jobs simulated, $checks checks"
		[ "$p" = fcfs ] && fcfs_wait=$(json_num "$TMP/r.json" wait_avg_s)
		[ "$p" = easy ] && easy_wait=$(json_num "$TMP/r.json" wait_avg_s)
		[ "$p" = fcfs ] && { [ "$(json_num "$TMP/r.json" backfilled)" -eq 0 ]; ok $? "$t fcfs: nothing backfilled"; }
	done
	# The literature's event order (pyss's): a pass after every event,
	# every invariant checked after each (the issue of fid-event: CTC's
	# jobs 4275 and 4276 killed at their limits at one instant).
	for p in easy conservative; do
		"$BFD" --replay "$f" --policy "$p" --per-event --check --format json >"$TMP/r.json" \
			2>"$TMP/err"
		ok $? "$t $p --per-event: --check replay runs clean"
		[ -s "$TMP/err" ] && sed 's/^/# /' "$TMP/err"
		checks=$(json_num "$TMP/r.json" checks)
		sim=$(json_num "$TMP/r.json" jobs_simulated)
		[ "$checks" -gt $((2 * sim)) ]
		ok $? "$t $p --per-event: $checks checks for $sim jobs (after each end, arrival and pass)"
	done
	awk -v a="$easy_wait" -v b="$fcfs_wait" 'BEGIN { exit !(a < b) }'
	ok $? "$t: EASY waits less on average than FCFS ($easy_wait < $fcfs_wait)"
done

# Every line of the trace is either simulated or skipped with a reason.
f=$(trace KTH-SP2-1996-2.1-cln.swf.gz)	# shipped in traces/
"$BFD" --replay "$f" --format json >"$TMP/k.json"
read_=$(json_num "$TMP/k.json" jobs_read); sim=$(json_num "$TMP/k.json" jobs_simulated)
skip=$(sed -n 's/^ *"total": *\([0-9]*\).*/\1/p' "$TMP/k.json")
[ "$read_" -eq 28476 ] && [ "$sim" -eq 28475 ] && [ "$skip" -eq 1 ]
ok $? "KTH: 28476 read = 28475 simulated + 1 skipped (job 27313 has no size)"
grep -q '"no_size": 1' "$TMP/k.json"
ok $? "KTH: the skipped job is counted as no_size"

# Determinism: two runs give byte-identical --jobs-out.
for p in easy conservative; do
	"$BFD" --replay "$f" --policy "$p" --jobs-out "$TMP/a.swf" >/dev/null &&
	"$BFD" --replay "$f" --policy "$p" --jobs-out "$TMP/b.swf" >/dev/null &&
	cmp -s "$TMP/a.swf" "$TMP/b.swf"
	ok $? "KTH $p: two runs write identical --jobs-out"
done

# jobs-out: one line per simulated job in input order, waits >= 0, run time
# never past the estimate, the other fields as in the input.
jobs=$(grep -vc '^;' "$TMP/a.swf")
[ "$jobs" -eq 28475 ]
ok $? "jobs-out has one line per simulated job ($jobs)"
awk '!/^;/ { if ($3 < 0 || ($9 > 0 && $4 > $9) || $1 <= last) bad++; last = $1 }
     END { exit bad > 0 }' "$TMP/a.swf"
ok $? "jobs-out: input order, waits >= 0, run time <= estimate"
zcat "$f" | awk '!/^;/ && $5 > 0 { print $1, $2, $5, $8, $9, $12 }' >"$TMP/in.txt"
awk '!/^;/ { print $1, $2, $5, $8, $9, $12 }' "$TMP/a.swf" >"$TMP/out.txt"
cmp -s "$TMP/in.txt" "$TMP/out.txt"
ok $? "jobs-out keeps the other fields (job, submit, sizes, estimate, user)"
grep -q '^; backfilld: replay, policy conservative, 100 nodes (from MaxProcs)' "$TMP/a.swf"
ok $? "jobs-out names the policy and machine size in its header"
grep -q '^; MaxProcs: 100' "$TMP/a.swf"
ok $? "jobs-out keeps the trace's header"
done_testing
