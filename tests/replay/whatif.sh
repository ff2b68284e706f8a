# What-if replays end to end on the shipped KTH-SP2 trace: the
# literature's event order, estimate models and seeds, workload shaping,
# breakdowns and confidence, --compare, sweeps (CSV, JSON, one cell by
# index, parallel = serial) and SVG plots.
. "$BF_TOP/tests/lib.sh"

K=$(trace KTH-SP2-1996-2.1-cln.swf.gz)	# shipped in traces/
XMLCHECK="$BF_BUILD/tests/bf_xmlcheck"
cd "$TMP" || exit 1

# j FILE KEY: a top-level number of a JSON report.
j() { json_num "$1" "$2"; }
# field FILE NAME: a column of a sweep's CSV, by the header's name.
field() {
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
	                      { print $c }' "$1"
}

# ---- the literature's event order --------------------------------------------
for p in easy conservative; do
	"$BFD" --replay "$K" --policy "$p" --format json >"d-$p.json" &&
	"$BFD" --replay "$K" --policy "$p" --per-event --check --format json >"e-$p.json"
	ok $? "$p: --per-event replays with every invariant checked"
	grep -q '"per_event": true' "e-$p.json" && grep -q '"per_event": false' "d-$p.json"
	ok $? "$p: the report says which event order it used"
	a=$(j "d-$p.json" bounded_slowdown_avg); b=$(j "e-$p.json" bounded_slowdown_avg)
	[ "$a" != "$b" ]
	ok $? "$p: one pass per instant and one per event give different schedules ($a, $b)"
done
"$BFD" --replay "$K" --per-event | grep -q "same-instant events (--per-event, as pyss)"
ok $? "the text report states the event order"

# ---- estimate models ------------------------------------------------------------
"$BFD" --replay "$K" --estimates exact --format json >exact.json
[ "$(j exact.json killed)" -eq 0 ] && grep -q '"estimate_accuracy": 1.000000' exact.json
ok $? "exact: no job killed, every estimate is the runtime"
"$BFD" --replay "$K" --estimates f=1 --format json >f1.json
[ "$(j f1.json bounded_slowdown_avg)" = "$(j exact.json bounded_slowdown_avg)" ]
ok $? "f=1 is exact"
"$BFD" --replay "$K" --estimates x1 --format json >x1.json
"$BFD" --replay "$K" --format json >trace.json
[ "$(j x1.json bounded_slowdown_avg)" = "$(j trace.json bounded_slowdown_avg)" ]
ok $? "x1 is the trace's own estimates"
"$BFD" --replay "$K" --estimates x0.5 --format json >half.json
[ "$(j half.json killed)" -gt "$(j trace.json killed)" ]
ok $? "x0.5 kills more jobs than the trace's estimates ($(j half.json killed) > $(j trace.json killed))"
for r in 3:a 3:b 4:c; do
	"$BFD" --replay "$K" --estimates f=4 --seed "${r%:*}" --jobs-out "f4-${r#*:}.swf" >/dev/null
done
a=f4-a.swf
cmp -s f4-a.swf f4-b.swf
ok $? "f=4: the same seed gives the same replay, job for job"
! cmp -s f4-a.swf f4-c.swf
ok $? "f=4: another seed gives another one"
awk '!/^;/ && ($9 < $4 || $9 > 4 * $4 + 1) { bad++ } END { exit bad > 0 }' "$a"
ok $? "f=4: every estimate (field 9 of --jobs-out) lies in [r, 4r]"
"$BFD" --replay "$K" --estimates model --format json >model.json
k=$(j model.json killed); s=$(j model.json jobs_simulated)
awk -v k="$k" -v s="$s" 'BEGIN { exit !(k > 0.07 * s && k < 0.13 * s) }'
ok $? "model: about one job in ten is killed ($k of $s)"
"$BFD" --replay "$K" --policy conservative --estimates history --check --format json >hist.json
ok $? "history: replays with every invariant checked"
[ "$(j hist.json extended_predictions)" -gt 0 ] && [ "$(j hist.json killed)" = "$(j trace.json killed)" ]
ok $? "history: short predictions are extended, and only jobs past their own limit are killed"
"$BFD" --replay "$K" --estimates bogus 2>err; [ $? -eq 2 ] && grep -q "unknown estimate model" err
ok $? "an unknown estimate model is a usage error"

# ---- seeds ---------------------------------------------------------------------
"$BFD" --replay "$K" --estimates f=4 --seeds 1..3 --format json >seeds.json
grep -q '"seeds": 3' seeds.json && [ "$(grep -c '"cell": ' seeds.json)" -eq 3 ]
ok $? "--seeds 1..3: three replays and a summary over them"
"$BFD" --replay "$K" --estimates f=4 --seeds 1..3 | grep -q "mean over the seeds"
ok $? "--seeds: the text report gives the mean and the spread"

# ---- shaping -------------------------------------------------------------------
"$BFD" --replay "$K" --load 1.25 --format json >load.json
[ "$(j load.json jobs_simulated)" = "$(j trace.json jobs_simulated)" ] &&
	awk -v a="$(j load.json utilization)" -v b="$(j trace.json utilization)" 'BEGIN { exit !(a > b) }'
ok $? "--load 1.25: the same jobs, arriving faster: utilization rises"
"$BFD" --replay "$K" --from 1997-01-01 --to 1997-03-01 --format json >win.json
tot=$(( $(j win.json jobs_simulated) + $(j win.json before_window) + $(j win.json after_window) ))
[ "$tot" -eq "$(j trace.json jobs_simulated)" ] && [ "$(j win.json jobs_simulated)" -gt 0 ]
ok $? "--from/--to: simulated + before + after the window = all ($tot)"
u=$(zcat "$K" | awk '!/^;/ && $5 > 0 && ($12 == 1 || $12 == 2)' | wc -l)
"$BFD" --replay "$K" --exclude-user 1,2 --format json >ex.json
[ "$(j ex.json excluded_jobs)" -eq "$u" ] &&
	[ "$(( $(j ex.json jobs_simulated) + u ))" -eq "$(j trace.json jobs_simulated)" ]
ok $? "--exclude-user 1,2: exactly their $u jobs are left out"
"$BFD" --replay "$K" --remove-flurries 50 --format json >fl.json
[ "$(j fl.json flurry_jobs)" -gt 0 ] &&
	[ "$(( $(j fl.json jobs_simulated) + $(j fl.json flurry_jobs) ))" -eq "$(j trace.json jobs_simulated)" ]
ok $? "--remove-flurries 50: $(j fl.json flurry_jobs) jobs of $(j fl.json flurry_users) users removed and counted"
"$BFD" --replay "$K" --nodes 64 >n64.txt
grep -q "^machine *64 nodes replayed against the trace's 100" n64.txt && grep -q "too_large 320" n64.txt
ok $? "--nodes 64: stated against the trace's own size, larger jobs counted"
"$BFD" --replay "$K" --from 1997-13-01 2>err; [ $? -eq 2 ] && grep -q "expected a date" err
ok $? "a bad date is a usage error"

# ---- breakdowns and confidence -----------------------------------------------------
sum_of() {	# sum_of FILE SECTION: the jobs of a breakdown's classes
	awk -v s="\"$2\": \\\\[" '$0 ~ s { on = 1; next } on && /^  \]/ { on = 0 }
	     on && /^      "jobs": / { gsub(/[^0-9]/, ""); t += $0 } END { print t + 0 }' "$1"
}
for sec in by_month by_runtime by_size; do
	[ "$(sum_of trace.json $sec)" -eq "$(j trace.json jobs_simulated)" ]
	ok $? "$sec: the classes hold every job once ($(sum_of trace.json $sec))"
done
grep -q '"class": "1997-05"' trace.json && grep -q '"class": ">=10h"' trace.json
ok $? "months by calendar (UnixStartTime) and runtime classes are named"
grep -A 5 '"distribution"' trace.json | grep -q '"median": 0.000000'
ok $? "distribution: the median wait (most KTH jobs start at once) is 0"
"$BFD" --replay "$K" --batch 1000 --warmup 2 --format json >bm.json
grep -q '"batch_jobs": 1000' bm.json && grep -q '"warmup_batches": 2' bm.json &&
	grep -q '"batches": 26' bm.json
ok $? "batch means: 28475 jobs in batches of 1000 after 2 warm-up = 26 batches"
"$BFD" --replay "$K" --breakdown >bd.txt
grep -q "^1997-05 " bd.txt && grep -q "^1h-10h " bd.txt && grep -q "^17-64 " bd.txt &&
	grep -q "^bsld 90% CI .* +- " bd.txt
ok $? "--breakdown: tables by month, runtime and size; intervals in the report"

# ---- --compare ------------------------------------------------------------------
"$BFD" --replay "$K" --compare easy,conservative --format json >cmp.json
ok $? "--compare easy,conservative runs"
ra=$(sed -n '/"a": {/,/}/s/^ *"response_avg_s": \([0-9.]*\),*/\1/p' cmp.json)
rb=$(sed -n '/"b": {/,/}/s/^ *"response_avg_s": \([0-9.]*\),*/\1/p' cmp.json)
d=$(awk '/"class": "all"/ { on = 1 } on && /"diff": / { gsub(/[^-0-9.]/, ""); print; exit }' cmp.json)
awk -v a="$ra" -v b="$rb" -v d="$d" 'BEGIN { x = a - b - d; exit !(x < 0.01 && x > -0.01) }'
ok $? "--compare: the paired difference of all jobs is A's mean minus B's ($ra - $rb = $d)"
[ "$(grep -c '"group": "month"' cmp.json)" -eq 12 ] && grep -q '"significant": "' cmp.json
ok $? "--compare: per month (12) and per class, with a verdict"
"$BFD" --replay "$K" --compare exact,trace >cmp.txt && grep -q "^A = easy/exact" cmp.txt &&
	grep -q "^B = easy/trace" cmp.txt
ok $? "--compare two estimate models under one policy"
"$BFD" --replay "$K" --compare easy 2>err; [ $? -eq 2 ]
ok $? "--compare needs two variants"

# ---- sweeps -----------------------------------------------------------------------
"$BFD" --replay "$K" --policy easy,conservative --estimates f=1,f=4 --seeds 1..2 \
	--format csv --parallel 2 >sw.csv
[ "$(wc -l <sw.csv)" -eq 9 ] && [ "$(field sw.csv policy | sort | uniq -c | awk '{ print $1 }' | tr '\n' ' ')" = "4 4 " ]
ok $? "sweep: 2 policies x 2 models x 2 seeds = 8 rows, every setting in each"
"$BFD" --replay "$K" --policy easy,conservative --estimates f=1,f=4 --seeds 1..2 \
	--format csv --parallel 1 >sw1.csv
cut -d, -f1-31 sw.csv >a.cut; cut -d, -f1-31 sw1.csv >b.cut
cmp -s a.cut b.cut
ok $? "sweep: 2 workers give the rows 1 worker gives (but the time taken)"
[ "$("$BFD" --replay "$K" --policy easy,conservative --estimates f=1,f=4 --seeds 1..2 --cells)" = 8 ]
ok $? "--cells: the grid's size"
"$BFD" --replay "$K" --policy easy,conservative --estimates f=1,f=4 --seeds 1..2 --cell 6 \
	--format csv | cut -d, -f1-31 | tail -1 >c6.cut
[ "$(sed -n 8p a.cut)" = "$(cat c6.cut)" ]
ok $? "--cell 6 alone gives the sweep's row 6"
"$BFD" --replay "$K" --policy easy --seeds 1..2 --cell 9 2>err; [ $? -eq 1 ] && grep -q "0 to 1" err
ok $? "--cell beyond the grid is refused, naming the range"
"$BFD" --replay "$K" --policy easy,conservative --estimates f=1,f=4 --format json >sw.json
grep -q '"cells_in_grid": 4' sw.json && [ "$(grep -c '"seeds": 1' sw.json)" -eq 4 ]
ok $? "sweep JSON: the cells and the summary"
"$BFD" --replay "$K" --policy easy,conservative --from +30d --exclude-user 3 --format json >swx.json
# 2 cells and 2 summaries, each with every setting.
[ "$(grep -c '"since": "trace start"' swx.json)" -eq 4 ] && [ "$(grep -c '"to": null' swx.json)" -eq 4 ] &&
	[ "$(grep -c '"excluded_users": \[' swx.json)" -eq 4 ]
ok $? "sweep JSON: every cell and summary names its window and its excluded users"

# ---- plots ----------------------------------------------------------------------------
"$BFD" --replay "$K" --policy easy,conservative --estimates f=1,f=2,f=4 --plot f.svg >/dev/null &&
	"$XMLCHECK" f.svg
ok $? "sweep plot: a well-formed SVG"
[ "$(grep -c '<g class="series" data-name="easy"' f.svg)" -eq 1 ] &&
	[ "$(grep -c '<g class="series" data-name="conservative"' f.svg)" -eq 1 ] &&
	[ "$(grep -c 'data-x="[124]" data-y=' f.svg)" -eq 6 ]
ok $? "sweep plot: one series per policy, a point at each F"
y=$(sed -n '/data-name="easy"/,/<\/g>/s/.*data-x="4" data-y="\([^"]*\)".*/\1/p' f.svg)
want=$("$BFD" --replay "$K" --estimates f=4 --format json | sed -n 's/^  "bounded_slowdown_avg": \(.*\),/\1/p')
awk -v a="$y" -v b="$want" 'BEGIN { d = a - b; exit !(d < 0.001 && d > -0.001) }'
ok $? "sweep plot: the point is the replay's figure ($y, $want)"
"$BFD" --replay "$K" --compare easy,conservative --plot m.svg >/dev/null && "$XMLCHECK" m.svg &&
	[ "$(grep -c 'class="bar"' m.svg)" -eq 24 ]
ok $? "compare plot: monthly bars, 12 months x 2 variants"
"$BFD" --replay "$K" --plot t.svg >/dev/null && "$XMLCHECK" t.svg &&
	grep -q 'data-name="utilization (%)"' t.svg && grep -q 'data-name="jobs waiting"' t.svg
ok $? "replay plot: utilization and queue length over time"
"$BFD" --replay "$K" --policy easy --plot x.svg >/dev/null 2>&1
[ $? -eq 0 ]
ok $? "a single replay plots its time line (not a sweep)"
"$BFD" --replay "$K" --seeds 1..2 --plot y.svg >/dev/null 2>err; [ $? -eq 1 ] && grep -q "nothing is swept" err
ok $? "a sweep over seeds alone has nothing to plot against, and says so"

# ---- progress on a terminal only (script(1) gives the replay one) ---------------
script -qec "\"$BFD\" --replay \"$K\" --format json" /dev/null >tty.out 2>&1
tr '\r' '\n' <tty.out >tty.lines
grep -q '^\[[#.]*\] [0-9]*/[0-9]* jobs' tty.lines && grep -q '"jobs_simulated"' tty.lines
ok $? "a single replay on a terminal shows its progress in jobs, then the report"
"$BFD" --replay "$K" --format json >/dev/null 2>err && [ ! -s err ]
ok $? "  and none when standard error is not a terminal"
script -qec "\"$BFD\" --replay \"$K\" --nodes 100,128 --parallel 1 --format csv" /dev/null >tty.out 2>&1
tr '\r' '\n' <tty.out | grep -q '^\[########################################\] 2/2 cells'
ok $? "a sweep's bar counts cells"

# ---- a single replay in CSV: the sweep's header, one row ---------------------
"$BFD" --replay "$K" --policy easy --format csv >one.csv 2>err
[ $? -eq 0 ] && [ "$(wc -l <one.csv)" -eq 2 ] && head -1 one.csv | grep -q "^cell,trace,policy,.*,bsld_avg,.*,wall_s$" &&
	[ "$(field one.csv policy)" = easy ] && [ "$(field one.csv jobs)" = "$(j d-easy.json jobs_simulated)" ]
ok $? "--format csv of a single replay: the sweep's header and one row"
awk -v a="$(field one.csv bsld_avg)" -v b="$(j d-easy.json bounded_slowdown_avg)" \
	'BEGIN { d = a - b; exit !(d < 0.0001 * b && d > -0.0001 * b) }'
ok $? "  its bounded slowdown is the JSON report's ($(field one.csv bsld_avg))"
"$BFD" --replay "$K" --format csv --plot t.svg >/dev/null 2>err; [ $? -eq 2 ] && grep -q "goes with the text or JSON report" err &&
	"$BFD" --replay "$K" --format csv --jobs-out j.out >/dev/null 2>err; [ $? -eq 2 ] && [ ! -e j.out ]
ok $? "  --plot (a time line) and --jobs-out with it are refused"
done_testing
