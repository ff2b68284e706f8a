# What a researcher reached for: --compare over seeds (paired by seed, a
# Student t interval across them), --utilization (the offered load of the
# scaled trace), the --seeds sweep's table, each month's own offered load
# in --breakdown, and how much a comparison's verdict depends on the batch
# size of its batch means. Small synthetic traces written here, the shipped
# KTH-SP2 trace, and CTC-SP2 when ../shared/traces has it.
. "$BF_TOP/tests/lib.sh"

K=$(trace KTH-SP2-1996-2.1-cln.swf.gz)	# shipped in traces/
cd "$TMP" || exit 1

# j FILE KEY: a top-level number of a JSON report.
j() { json_num "$1" "$2"; }
# near A B TOL: |A - B| <= TOL.
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && d >= -t) }'; }

# ---- --breakdown: each month's own offered load ---------------------------------
# 10 nodes from 2021-01-01T00:00Z. January: 10 nodes for 3.1 days of its 31
# (10%); February: 5 nodes for 11.2 days of its 28 (20%; the job is killed
# at its estimate, but the load offered is its logged run time); March, up
# to the last submission on the 31st (30 days): 10 nodes for 6 + 3 days
# (30%). The old figure, each month's share of the whole replay's
# node-seconds, would be 3.37%, 3.15% and 9.78%.
cat >months.swf <<'SWF'
; UnixStartTime: 1609459200
; MaxProcs: 10
1 0 -1 267840 10 -1 -1 10 300000 -1 1 1 1 1 1 1 -1 -1
2 2678400 -1 967680 5 -1 -1 5 500000 -1 1 1 1 1 1 1 -1 -1
3 5097600 -1 518400 10 -1 -1 10 600000 -1 1 1 1 1 1 1 -1 -1
4 7689600 -1 259200 10 -1 -1 10 300000 -1 1 1 1 1 1 1 -1 -1
SWF
"$BFD" --replay months.swf --breakdown >months.txt
[ "$(awk '/^2021-0[123] / { printf "%s %s ", $1, $3 }' months.txt)" = \
  "2021-01 10.00 2021-02 20.00 2021-03 30.00 " ]
ok $? "--breakdown: each month's own offered load (10, 20, 30 %), not its share of the whole"
"$BFD" --replay months.swf --format json >months.json
[ "$(grep -A2 '"class": "2021-' months.json | sed -n 's/.*"load": \(.*\),/\1/p' | tr '\n' ' ')" = \
  "0.100000 0.200000 0.300000 " ]
ok $? "by_month in JSON: the same loads"
grep -q '"killed": 1' months.json
ok $? "the February job is killed at its estimate, and its month's load is still its logged work"
# Without UnixStartTime: 30-day periods from the first submission. +0d:
# job 1 (2678400 node-s) over 30 days = 10.33%; +30d (days 30 to 60): jobs
# 2 and 3 (4838400 + 5184000) = 38.67%; +60d ends at the last submission,
# day 89: job 4 (2592000) over 29 days = 10.34%.
sed '/UnixStartTime/d' months.swf >periods.swf
"$BFD" --replay periods.swf --breakdown >periods.txt
[ "$(awk '/^\+[0-9]+d / { printf "%s %s ", $1, $3 }' periods.txt)" = \
  "+0d 10.33 +30d 38.67 +60d 10.34 " ]
ok $? "30-day periods without UnixStartTime: each its own offered load, the last up to the last submission"

# ---- a comparison's verdict at three batch sizes ----------------------------------
# all_bsld FILE: the all-jobs bounded slowdown object of a comparison's
# JSON, one "key value" a line (by_batch_size's as "size.N.key value").
all_bsld() {
	awk '/"class": "all"/ { on = 1 } on && /"bounded_slowdown": \{/ { b = 1; next }
	     b && /"by_batch_size"/ { k = -1; next }
	     b && k != "" && /^          \{/ { k++ }
	     b && /^        \]/ { k = "" }
	     b && /^      \}/ { exit }
	     b && /": / { key = $1; gsub(/[":]/, "", key); v = $0; sub(/^[^:]*: /, "", v); sub(/,$/, "", v)
	                 gsub(/"/, "", v); print (k != "" ? "size." k "." : "") key, v }' "$1"
}
"$BFD" --replay "$K" --compare trace,x2 --format json >x2.json
all_bsld x2.json >x2.all
[ "$(grep -c '^size\.[012]\.batch_jobs ' x2.all)" -eq 3 ] &&
	[ "$(sed -n 's/^size\.\([012]\)\.batch_jobs //p' x2.all | tr '\n' ' ')" = "889 1778 4445 " ]
ok $? "--compare JSON: each verdict at the default batch (28475 / 32 = 889 jobs), x2 and x5"
grep -q '^significant B lower$' x2.all && grep -q '^size\.2\.significant no$' x2.all &&
	grep -q '^depends_on_batch_size true$' x2.all
ok $? "trace against x2 on KTH: B lower at 889 jobs a batch, no at 4445: it depends on the batch size"
"$BFD" --replay "$K" --compare trace,x2 --batch 4445 --format json >x2b.json
all_bsld x2b.json >x2b.all
[ "$(sed -n 's/^lo //p' x2b.all) $(sed -n 's/^hi //p' x2b.all)" = \
  "$(sed -n 's/^size\.2\.lo //p' x2.all) $(sed -n 's/^size\.2\.hi //p' x2.all)" ]
ok $? "the interval at x5 is the one --batch 4445 gives"
"$BFD" --replay "$K" --compare trace,x2 >x2.txt
grep -q '^all  *all .* B lower\*$' x2.txt &&
	grep -qx '  all all, bsld: B lower at 889 jobs a batch (31 batches), B lower at 1778 (15 batches), no at 4445 (5 batches)' x2.txt &&
	grep -q '^the verdict depends on the batch size' x2.txt
ok $? "the text report marks the verdict and says it depends on the batch size, at each size"
# Every marked verdict is listed, and nothing else is.
[ "$(grep '|' x2.txt | tr -cd '*' | wc -c)" -eq "$(grep -c '^  [a-z]* .*, \(resp\|bsld\): ' x2.txt)" ]
ok $? "as many verdicts marked as listed"
"$BFD" --replay "$K" --compare easy,fcfs >fcfs.txt
grep -q '^every verdict is the same with batches 2 and 5 times as long' fcfs.txt && ! grep -q '\*' fcfs.txt
ok $? "easy against fcfs: no verdict depends on the batch size, and the report says so"
C=$(trace CTC-SP2-1996-3.1-cln.swf.gz)
if have_trace CTC-SP2-1996-3.1-cln.swf.gz; then
	"$BFD" --replay "$C" --nodes 430 --compare easy,conservative >ctc.txt
	grep -qx '  all all, resp: A lower at 2413 jobs a batch (31 batches), A lower at 4826 (15 batches), no at 12065 (5 batches)' ctc.txt
	ok $? "CTC-SP2 on 430 nodes, easy against conservative: the all-jobs verdict goes at 5 times the batch"
else
	skip_check "CTC-SP2 on 430 nodes: the all-jobs verdict at three batch sizes" "CTC-SP2-1996-3.1-cln.swf.gz is not in $BF_TRACES"
fi

done_testing
