# CREASY in replay: alpha 0 gives EASY's schedule job for job on real
# traces (KTH and NASA come with the project; CTC and RICC-2010 are read
# from ../shared/traces and skipped, saying so, when absent); a positive
# alpha gives another schedule that favours short jobs; --check runs
# clean; the options are checked.
. "$BF_TOP/tests/lib.sh"

traces="KTH-SP2-1996-2.1-cln NASA-iPSC-1993-3.1-cln CTC-SP2-1996-3.1-cln RICC-2010-2"
# Under the sanitizers the large traces are slow; KTH alone covers the code.
[ -n "${BACKFILLD_TEST_QUICK:-}" ] && traces="KTH-SP2-1996-2.1-cln"

for t in $traces; do
	f=$(trace "$t.swf.gz")
	if ! have_trace "$t.swf.gz"; then
		skip_check "$t: creasy with alpha 0 is EASY job for job" "$f is not here (the large traces are in ../shared/traces beside the checkout)"
		continue
	fi
	"$BFD" --replay "$f" --policy easy --jobs-out "$TMP/easy.swf" >/dev/null &&
	"$BFD" --replay "$f" --policy creasy --alpha 0 --jobs-out "$TMP/c0.swf" >/dev/null
	ok $? "$t: easy and creasy (alpha 0) replay"
	grep -v '^;' "$TMP/easy.swf" >"$TMP/easy.jobs"
	grep -v '^;' "$TMP/c0.swf" >"$TMP/c0.jobs"
	jobs=$(grep -c . "$TMP/easy.jobs")
	[ "$jobs" -gt 1000 ] && cmp -s "$TMP/easy.jobs" "$TMP/c0.jobs"
	ok $? "$t: creasy with alpha 0 gives EASY's schedule, job for job ($jobs jobs)"
	grep -q '^; backfilld: replay, policy creasy, alpha 0,' "$TMP/c0.swf"
	ok $? "$t: the jobs-out header names creasy and its alpha"
done

# A positive alpha: another schedule, and short jobs wait less than under
# EASY (criticality is highest for a short expected response).
f=$(trace KTH-SP2-1996-2.1-cln.swf.gz)	# shipped in traces/
"$BFD" --replay "$f" --policy creasy --alpha 1000 --check --format json --jobs-out "$TMP/c1000.swf" \
	>"$TMP/c.json" 2>"$TMP/err"
ok $? "KTH creasy alpha 1000: --check replay runs clean"
[ -s "$TMP/err" ] && sed 's/^/# /' "$TMP/err"
checks=$(json_num "$TMP/c.json" checks)
[ "$checks" -gt 28475 ]
ok $? "KTH creasy alpha 1000: $checks invariant checks"
grep -q '"policy": "creasy"' "$TMP/c.json" && grep -q '"alpha": 1000' "$TMP/c.json"
ok $? "KTH creasy: the JSON report names the policy and alpha"
grep -v '^;' "$TMP/c1000.swf" >"$TMP/c1000.jobs"
"$BFD" --replay "$f" --policy easy --jobs-out "$TMP/easy.swf" >/dev/null
grep -v '^;' "$TMP/easy.swf" >"$TMP/easy.jobs"
moved=$(paste -d' ' "$TMP/easy.jobs" "$TMP/c1000.jobs" | awk '$3 != $(NF/2 + 3) { m++ } END { print m + 0 }')
[ "$moved" -gt 100 ]
ok $? "KTH creasy alpha 1000: $moved jobs start at another time than under EASY"
# Short jobs (estimate under 10 minutes) against long ones (over 4 hours):
# their mean wait under creasy relative to EASY.
ratio() {	# FILE-A FILE-B: mean wait of A over mean wait of B, for a class of estimates
	paste -d' ' "$1" "$2" | awk -v lo="$3" -v hi="$4" '
		{ e = $9; if (e >= lo && e < hi) { a += $3; b += $(NF/2 + 3) } }
		END { printf "%.3f", (b > 0 ? a / b : 1) }'
}
short=$(ratio "$TMP/c1000.jobs" "$TMP/easy.jobs" 0 600)
long=$(ratio "$TMP/c1000.jobs" "$TMP/easy.jobs" 14400 1000000000)
awk -v s="$short" -v l="$long" 'BEGIN { exit !(s < 1 && s < l) }'
ok $? "KTH creasy alpha 1000: short jobs wait less than under EASY, relative to long ones (mean wait vs EASY: short x$short, long x$long)"

# The options.
"$BFD" --replay "$f" --policy creasy >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q 'creasy needs --alpha' "$TMP/err"
ok $? "--policy creasy without --alpha: a usage error that says so"
"$BFD" --replay "$f" --policy easy --alpha 5 >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q 'no replay here uses creasy' "$TMP/err"
ok $? "--alpha without creasy: a usage error"
for bad in -1 abc 1e10 nan ''; do
	"$BFD" --replay "$f" --policy creasy --alpha "$bad" >/dev/null 2>"$TMP/err"
	[ $? -eq 2 ] && grep -q 'expected a number from 0 to 1e9' "$TMP/err"
	ok $? "--alpha '$bad': refused with the range"
done
"$BFD" --replay "$f" --compare easy,creasy --alpha 0 >"$TMP/cmp.txt" 2>"$TMP/err"
ok $? "--compare easy,creasy --alpha 0 runs"
done_testing
