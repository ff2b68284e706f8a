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

# ---- the --seeds sweep's table ------------------------------------------------------
# row FILE POLICY ESTIMATES: the table's line of that setting.
row() { awk -v p="$2" -v e="$3" '$1 == p && $2 == e' "$1"; }
"$BFD" --replay "$K" --estimates f=4 --seed 2 --format json >f4s2.json
"$BFD" --replay "$K" --estimates f=4 --seeds 1..3 >seeds.txt
head -3 seeds.txt | grep -q '^policy  *estimates  *load  *nodes  *jobs  *skipped  *bsld avg (sd, min-max)  *resp avg s  *wait avg s  *util %$'
ok $? "--seeds table: jobs, skipped and mean response time beside the bounded slowdown's spread"
set -- $(row seeds.txt easy f=4)
[ "$5" = "$(j f4s2.json jobs_simulated)" ] &&
	[ "$6" = "$(sed -n '/"skipped": {/,/}/s/^ *"total": \([0-9]*\),/\1/p' f4s2.json)" ]
ok $? "--seeds table: the jobs replayed and skipped are the replay's ($5, $6)"
# The mean response time over seeds 1..3 is the mean of the three replays'.
for s in 1 3; do "$BFD" --replay "$K" --estimates f=4 --seed $s --format json >f4s$s.json; done
want=$(awk -v a="$(j f4s1.json response_avg_s)" -v b="$(j f4s2.json response_avg_s)" \
	-v c="$(j f4s3.json response_avg_s)" 'BEGIN { printf "%.0f", (a + b + c) / 3 }')
set -- $(row seeds.txt easy f=4)
[ "${10}" = "$want" ]
ok $? "--seeds table: the response time is the mean of the seeds' (${10}, $want)"
"$BFD" --replay "$K" --policy easy,conservative >one2.txt
grep -q '^policy .* skipped  *bsld avg  *resp avg s' one2.txt && ! grep -q 'sd, min-max\|mean over the seeds' one2.txt
ok $? "one seed: no spread columns, no word of means over seeds"
"$BFD" --replay "$K" --format json >trace.json
set -- $(row one2.txt easy trace)
[ "$8" = "$(printf '%.0f' "$(j trace.json response_avg_s)")" ]
ok $? "one seed: the line's response time is the replay's ($8)"
# Settings that do not use the seed: replayed once, and said.
"$BFD" --replay "$K" --policy easy,conservative --estimates trace,f=1,x2,exact,f=4 --seeds 1..3 \
	--format json >mixed.json
"$BFD" --replay "$K" --policy easy,conservative --estimates trace,f=1,x2,exact,f=4 --seeds 1..3 >mixed.txt
grep -q '^backfilld sweep: .*, 30 cells (3 seeds each), 14 replayed;' mixed.txt &&
	grep -q '^estimates trace, f=1, x2, exact: not drawn with the seed, so each setting with them was replayed once' mixed.txt
ok $? "trace, f=1, x2, exact replayed once per setting, f=4 per seed: 2 x (4 + 3) = 14 replays, and the report says so"
[ "$(row mixed.txt conservative x2 | grep -c 'the same for every seed')" -eq 1 ] &&
	[ "$(row mixed.txt conservative f=4 | grep -c 'the same for every seed')" -eq 0 ]
ok $? "the table says which lines are the same for every seed"
[ "$(grep -c '"replayed": false' mixed.json)" -eq 16 ] && [ "$(grep -c '"replayed": true' mixed.json)" -eq 14 ] &&
	[ "$(grep -c '"replays": 1,' mixed.json)" -eq 8 ] && [ "$(grep -c '"replays": 3,' mixed.json)" -eq 2 ]
ok $? "JSON: 16 cells not replayed, 14 replayed; summaries of 1 and of 3 replays"
# A copied cell: the figures of its setting's first seed, its own seed, no time.
awk '/"cell": 1,/ { on = 1 } on && /"seed": / { s = $2 } on && /"wall_s": / { w = $2 }
     on && /"same_as_cell": / { print s, w, $2; exit }' mixed.json >copy.txt
[ "$(cat copy.txt)" = "2, 0.000000, 0" ]
ok $? "cell 1 (easy, trace, seed 2) is cell 0's replay: seed 2, wall_s 0, same_as_cell 0"
"$BFD" --replay "$K" --estimates trace --seeds 1..2 --format csv --parallel 1 >tr.csv
"$BFD" --replay "$K" --estimates trace --seed 2 --format json >tr2.json
[ "$(awk -F, 'NR == 3 { print $18 }' tr.csv)" = "$(printf '%.6g' "$(j tr2.json wait_avg_s)")" ]
ok $? "CSV: seed 2's row, not replayed, has the figures seed 2 gives"
"$BFD" --replay "$K" --estimates trace --seeds 1..2 --cell 1 --format json >c1t.json
grep -q '"seed": 2,' c1t.json && grep -q '"replayed": true,' c1t.json && grep -q '"same_as_cell": 1$' c1t.json
ok $? "--cell alone replays its cell, a seed that changes nothing too"

# ---- --compare A,B --seeds: paired by seed ---------------------------------------------
# per_seed FILE SIDE KEY: that figure of a side for each seed, one a line.
per_seed() {
	awk -v side="\"$2\": {" -v key="\"$3\": " '/"per_seed": \[/ { on = 1 }
	     on && index($0, side) { in_side = 1; next } in_side && /}/ { in_side = 0 }
	     in_side && index($0, key) { v = $2; sub(/,$/, "", v); print v }' "$1"
}
# figure FILE NAME KEY: a key of a figure's object.
figure() {
	awk -v f="\"figure\": \"$2\"" -v key="\"$3\": " 'index($0, f) { on = 1 }
	     on && index($0, key) { v = $0; sub(/^[^:]*: /, "", v); sub(/,$/, "", v); gsub(/"/, "", v); print v; exit }' "$1"
}
"$BFD" --replay "$K" --compare easy/f=4,conservative/f=4 --seeds 1..3 --format json --parallel 2 >cs.json
ok $? "--compare easy/f=4,conservative/f=4 --seeds 1..3 runs (it was refused)"
"$BFD" --replay "$K" --compare easy/f=4,conservative/f=4 --seeds 1..3 --format json --parallel 1 >cs1.json
cmp -s cs.json cs1.json
ok $? "--compare over seeds: 2 workers give what 1 gives"
# Each side's figure for a seed is the replay with that seed: the same
# draws for both sides.
good=0
for s in 1 2 3; do
	for p in easy:a conservative:b; do
		"$BFD" --replay "$K" --policy "${p%:*}" --estimates f=4 --seed $s --format json >one.json
		[ "$(per_seed cs.json "${p#*:}" bounded_slowdown | sed -n "${s}p")" = "$(j one.json bounded_slowdown_avg)" ] ||
			good=1
	done
done
ok $good "--compare over seeds: each side's figure for seed s is the replay of that side with --seed s"
per_seed cs.json a bounded_slowdown >a.v; per_seed cs.json b bounded_slowdown >b.v
# The mean difference, its 95% Student t interval (t(0.975, 2) = 4.302653)
# and the seeds B won, from the per-seed figures.
paste a.v b.v | awk '{ d[NR] = $1 - $2; s += d[NR]; won += $2 < $1 }
	END { m = s / NR; for (i = 1; i <= NR; i++) v += (d[i] - m) ^ 2; h = 4.302653 * sqrt(v / (NR - 1)) / sqrt(NR)
	      printf "%.4f %.4f %.4f %d\n", m, m - h, m + h, won }' >want.txt
printf '%.4f %.4f %.4f %d\n' "$(figure cs.json bounded_slowdown diff)" "$(figure cs.json bounded_slowdown lo)" \
	"$(figure cs.json bounded_slowdown hi)" "$(figure cs.json bounded_slowdown b_won)" >got.txt
cmp -s want.txt got.txt
ok $? "bsld: mean paired difference, its 95% t interval (2 df) and the seeds B won ($(cat got.txt))"
paste a.v b.v | awk '{ r[NR] = ($1 - $2) / $2; s += r[NR] } END { printf "%.4f\n", s / NR }' >want.txt
[ "$(printf '%.4f' "$(figure cs.json bounded_slowdown rel_diff)")" = "$(cat want.txt)" ]
ok $? "bsld: the mean relative difference (A - B) / B"
grep -q '"confidence": 0.950000' cs.json && grep -q '"degrees_of_freedom": 2,' cs.json &&
	grep -q '"t": 4.302653' cs.json && grep -q '"method": "Student t across seeds"' cs.json
ok $? "JSON: the interval is 95%, Student t, n - 1 = 2 degrees of freedom"
"$BFD" --replay "$K" --compare easy/f=4,conservative/f=4 --seeds 1..3 >cs.txt
grep -q '^paired by seed' cs.txt && grep -q '95% confidence interval, Student t with 2 degrees of freedom' cs.txt &&
	grep -q '^bsld .* [0-3] of 3 ' cs.txt && grep -q '^resp s ' cs.txt && grep -q '^killed ' cs.txt
ok $? "text: paired by seed, 95% Student t with 2 degrees of freedom, a line per figure with the seeds B won"
"$BFD" --replay "$K" --compare trace,f=4 --seeds 1..3 --format json >ts.json
[ "$(sed -n '/"a": {/,/}/s/^ *"replays": \([0-9]*\),*/\1/p' ts.json)" = 1 ] &&
	[ "$(sed -n '/"b": {/,/}/s/^ *"replays": \([0-9]*\),*/\1/p' ts.json)" = 3 ] &&
	[ "$(per_seed ts.json a bounded_slowdown | sort -u | wc -l)" -eq 1 ]
ok $? "a side whose estimates do not use the seed (trace) is replayed once, its figure the same for each seed"
"$BFD" --replay "$K" --compare easy,conservative --seeds 1..3 >ec.txt
grep -q '^neither side uses the seed' ec.txt && [ "$(grep -c ' n/a$' ec.txt)" -eq 7 ]
ok $? "neither side uses the seed: the report says the differences are exact, no interval"
"$BFD" --replay "$K" --compare easy/f=4,conservative/f=4 --seeds 2..2 >c1.txt
grep -q '^per-job paired differences' c1.txt
ok $? "--compare with a single seed is the per-job comparison at that seed"
"$BFD" --replay "$K" --compare easy,conservative --seeds 1..3 --format csv 2>err; [ $? -eq 2 ] &&
	grep -q 'text or JSON' err
ok $? "--compare with --format csv is refused, saying why"
"$BFD" --replay "$K" --compare easy,conservative --seeds 1..3 --plot x.svg >/dev/null &&
	[ "$(grep -c 'class="bar"' x.svg)" -eq 2 ]
ok $? "--compare over seeds with --plot: each side's mean over the seeds, a bar each (tests/replay/plots.sh checks more)"
"$BFD" --replay "$K" --compare easy,conservative --nodes 64,100 2>err; [ $? -eq 2 ] &&
	grep -q 'not lists or --cell' err
ok $? "--compare still takes one value of each setting"

# ---- --utilization: the offered load of the scaled trace -------------------------------
# shaping FILE KEY: a key of a replay's JSON shaping object.
shaping() { sed -n "/\"shaping\": {/,/}/s/^ *\"$2\": \([^,]*\),*\$/\1/p" "$1"; }
# The months trace offers 2678400 + 4838400 + 7776000 = 15292800 node-s
# on 10 nodes from its first submission to its last (89 days): 0.198876.
# For 0.5 the span must be 15292800 / 5 = 3058560 s: a factor of
# 7689600 / 3058560 = 2.514124.
"$BFD" --replay months.swf --format json >m1.json
[ "$(shaping m1.json offered_load)" = 0.198876 ] && [ "$(shaping m1.json utilization_target)" = null ]
ok $? "a replay reports its offered load (0.198876, computed by hand), with no target"
"$BFD" --replay months.swf --utilization 0.5 --format json --jobs-out m5.swf >m5.json
[ "$(shaping m5.json offered_load)" = 0.500000 ] && [ "$(shaping m5.json utilization_target)" = 0.500000 ] &&
	[ "$(shaping m5.json load)" = 2.514124 ]
ok $? "--utilization 0.5: the factor 2.514124 (by hand), the offered load reached 0.500000"
[ "$(grep -v '^;' m5.swf | awk '{ print $2 }' | tr '\n' ' ')" = "0 1065341 2027585 3058560 " ]
ok $? "--utilization 0.5: the arrivals span 3058560 s, as the target needs"
"$BFD" --replay months.swf --utilization 0.5 >m5.txt
grep -q '^shaping  *load x2.51412 (inter-arrival times / 2.51412) for an offered load of 0.5 (--utilization)$' m5.txt &&
	grep -q '^offered load  *0.500000 ' m5.txt
ok $? "the text report says the factor found and the offered load reached"
"$BFD" --replay "$K" --format json >kth.json
"$BFD" --replay "$K" --utilization 0.85 --format json >k85.json
awk -v l="$(shaping kth.json offered_load)" -v f="$(shaping k85.json load)" \
	'BEGIN { d = l * f - 0.85; exit !(d < 2e-6 && d > -2e-6) }' &&
	[ "$(shaping k85.json offered_load)" = 0.850000 ] && [ "$(j k85.json jobs_simulated)" = "$(j kth.json jobs_simulated)" ]
ok $? "KTH at 0.85: the same jobs; its own offered load ($(shaping kth.json offered_load)) times the factor ($(shaping k85.json load)) is 0.85"
"$BFD" --replay "$K" --load "$(shaping k85.json load)" --format json >kl.json
awk -v a="$(shaping kl.json offered_load)" 'BEGIN { d = a - 0.85; exit !(d < 1e-5 && d > -1e-5) }'
ok $? "--load with that factor (to 6 decimals) offers the same load ($(shaping kl.json offered_load))"
# With --policy, --nodes, --estimates and --seeds, as --load: each cell
# reaches its target on its own machine.
"$BFD" --replay "$K" --utilization 0.8,0.9 --policy easy,conservative --nodes 64,100 \
	--estimates f=4 --seeds 1..2 --format csv >u.csv
ok $? "--utilization combines with --policy, --nodes, --estimates and --seeds"
[ "$(wc -l <u.csv)" -eq 17 ] && head -1 u.csv | grep -q ',utilization_target,offered_load$' &&
	awk -F, 'NR > 1 { d = $NF - $(NF - 1); if (d > 1e-6 || d < -1e-6) bad++ } END { exit bad > 0 }' u.csv
ok $? "16 cells, each reaching its target (the CSV's offered_load against utilization_target)"
[ "$(awk -F, 'NR > 1 { print $7, $6 }' u.csv | sort -u | wc -l)" -eq 4 ] &&
	[ "$(awk -F, 'NR > 1 && $7 == 64 { print $6 }' u.csv | sort -u | wc -l)" -eq 2 ]
ok $? "the factor is one per machine size and target, the same for every policy, model and seed"
"$BFD" --replay "$K" --utilization 0.8,0.9 --policy easy >u.txt
grep -q '^policy  *estimates  *offered  *factor  *nodes' u.txt && grep -q '^easy  *trace  *0.800000 ' u.txt
ok $? "the sweep's table gives the offered load reached and the factor"
"$BFD" --replay "$K" --utilization 0.85 --compare easy,conservative --format json >uc.json
grep -q '"utilization_target": 0.850000' uc.json && grep -q '"offered_load": 0.850000' uc.json
ok $? "--compare at --utilization 0.85: both sides replay the scaled trace, and the report says so"
"$BFD" --replay "$K" --utilization 0.85 --load 1.2 2>err; [ $? -eq 2 ] && grep -q 'both set the load' err
ok $? "--utilization with --load is refused"
bad=0
for u in 0 -0.5 10.01 abc 0.85x; do
	"$BFD" --replay "$K" --utilization "$u" 2>err
	[ $? -eq 2 ] && grep -q "expected an offered load above 0 and at most 10" err || bad=1
done
ok $bad "--utilization outside (0, 10] is refused with the range"
"$BFD" --replay months.swf --utilization 10 --format json >u10.json
[ "$(shaping u10.json offered_load)" = 10.000000 ]
ok $? "--utilization 10, the top of the range, is taken"
"$BFD" --replay months.swf --utilization 0.001 2>err; [ $? -eq 1 ] && grep -q 'load factor of 0.005028' err
ok $? "a target beyond --load's range of factors fails, saying what it would take"
head -3 months.swf >one.swf
"$BFD" --replay one.swf --utilization 0.5 2>err; [ $? -eq 1 ] && grep -q 'within a second' err
ok $? "a trace of one arrival has no offered load to reach, and says so"

done_testing
