# Workload characterization and site-level simulation (backfilld(8), SITE
# SIMULATION): the model of a shipped trace, read back; under a light load
# the simulated jobs have the trace's sizes and runtimes within stated
# tolerances; the same seed gives the same run, another seed another;
# creasy with alpha 0 is EASY; the experiment writes its CSV and plots;
# bad input is refused with a clear message.
. "$BF_TOP/tests/lib.sh"
XMLCHECK="$BF_BUILD/tests/bf_xmlcheck"

f=$(trace KTH-SP2-1996-2.1-cln.swf.gz)	# shipped in traces/
"$BFD" --characterize "$f" --model-out "$TMP/kth.model" >"$TMP/sum.txt" 2>"$TMP/err"
ok $? "characterize KTH: runs"
grep -q "^trace  *28475 jobs of 214 users, [0-9]* sessions" "$TMP/sum.txt" &&
	grep -q "^think times  *[0-9]*, mean" "$TMP/sum.txt" && grep -q "^breaks " "$TMP/sum.txt" &&
	grep -q "^batch widths " "$TMP/sum.txt" && grep -q "^runs of one size " "$TMP/sum.txt"
ok $? "the summary: jobs, users, sessions, think times, breaks, batches, runs"
head -2 "$TMP/kth.model" | grep -q '^backfilld-site-model 1$' &&
	[ "$(awk '$1 == "job" { s += $5 } END { print s }' "$TMP/kth.model")" -eq 28475 ] &&
	awk '$1 == "think" && ($2 < 0 || $2 > 1200) { bad++ } $1 == "break" && ($2 <= 1200 || $2 > 28800) { bad++ } END { exit bad > 0 }' "$TMP/kth.model"
ok $? "the model: every job counted once, think times up to 20 min, breaks 20 min .. 8 h"
lines=$(grep -c . "$TMP/kth.model")
[ "$lines" -lt 30000 ]
ok $? "the model file is small ($lines lines for 28475 jobs)"

# A light load: 10 users on the trace's 100 nodes for a year.
"$BFD" --site "$TMP/kth.model" --users 10 --days 365 --jobs-out "$TMP/sim.swf" --format json \
	>"$TMP/light.json" 2>"$TMP/err"
ok $? "simulate 10 users for 365 days"
util=$(json_num "$TMP/light.json" utilization)
awk -v u="$util" 'BEGIN { exit !(u > 0.05 && u < 0.5) }'
ok $? "a light load (utilization $util)"
for k in throughput_jobs_per_hour session_length_jobs wait_avg_s bounded_slowdown_avg; do
	grep -q "\"$k\": [0-9]" "$TMP/light.json" || echo "# no $k"
done
grep -q '"throughput_jobs_per_hour": [0-9]' "$TMP/light.json" &&
	grep -q '"session_length_jobs": [0-9]' "$TMP/light.json" && grep -q '"night-weekend": {' "$TMP/light.json"
ok $? "the JSON report: throughput_jobs_per_hour, session_length_jobs, per class"
# Sizes (field 5) and runtimes (field 4): the share of jobs at or below
# each point, simulated against the trace. Tolerances: 0.06 for sizes,
# whose runs of equal jobs are long (a run of a hundred serial jobs moves
# the share by a point: 60 users on a machine that never makes them wait
# draw enough runs for it); 0.03 for runtimes.
"$BFD" --site "$TMP/kth.model" --users 60 --days 365 --nodes 10000 --jobs-out "$TMP/sim.swf" \
	>/dev/null 2>"$TMP/err" || echo "# the 60-user simulation failed: $(cat "$TMP/err")"
cdf() {	# COLUMN POINTS...: the share of jobs at or below each point
	col=$1; shift
	awk -v col="$col" -v pts="$*" 'BEGIN { np = split(pts, p, " ") }
		!/^;/ && $5 > 0 && $4 >= 0 && $12 >= 0 { n++; for (i = 1; i <= np; i++) if ($col <= p[i]) c[i]++ }
		END { for (i = 1; i <= np; i++) printf "%.4f ", c[i] / n; print "" }'
}
zcat "$f" | cdf 5 1 2 4 8 16 32 >"$TMP/size.trace"
cdf 5 1 2 4 8 16 32 <"$TMP/sim.swf" >"$TMP/size.sim"
zcat "$f" | cdf 4 30 60 300 900 3600 14400 36000 >"$TMP/run.trace"
cdf 4 30 60 300 900 3600 14400 36000 <"$TMP/sim.swf" >"$TMP/run.sim"
within() {	# A-FILE B-FILE TOLERANCE
	paste "$1" "$2" | awk -v t="$3" '{ n = NF / 2; for (i = 1; i <= n; i++) { d = $i - $(i + n); if (d < 0) d = -d; if (d > t) bad++ } } END { exit bad > 0 }'
}
jobs=$(grep -vc '^;' "$TMP/sim.swf")
within "$TMP/size.trace" "$TMP/size.sim" 0.06
ok $? "$jobs simulated jobs have the trace's sizes within 0.06 (CDF at 1..32 nodes: trace $(cat "$TMP/size.trace")/ simulated $(cat "$TMP/size.sim"))"
within "$TMP/run.trace" "$TMP/run.sim" 0.03
ok $? "and its runtimes within 0.03 (CDF at 30 s .. 10 h: trace $(cat "$TMP/run.trace")/ simulated $(cat "$TMP/run.sim"))"
awk '!/^;/ && ($3 < 0 || $4 > $9 || $5 > 100) { bad++ } END { exit bad > 0 }' "$TMP/sim.swf"
ok $? "jobs-out: waits >= 0, runs within their estimates, sizes within the machine"

# Determinism.
"$BFD" --site "$TMP/kth.model" --users 40 --days 14 --policy conservative --seed 5 --jobs-out "$TMP/a.swf" >"$TMP/a.txt" &&
	"$BFD" --site "$TMP/kth.model" --users 40 --days 14 --policy conservative --seed 5 --jobs-out "$TMP/b.swf" >"$TMP/b.txt" &&
	cmp -s "$TMP/a.swf" "$TMP/b.swf" && grep -v '^events' "$TMP/a.txt" >"$TMP/a.rep" &&
	grep -v '^events' "$TMP/b.txt" >"$TMP/b.rep" && cmp -s "$TMP/a.rep" "$TMP/b.rep"
ok $? "the same seed: the same jobs and the same report"
"$BFD" --site "$TMP/kth.model" --users 40 --days 14 --policy conservative --seed 6 --jobs-out "$TMP/c.swf" >/dev/null
! cmp -s "$TMP/a.swf" "$TMP/c.swf"
ok $? "another seed: another run"

# creasy with alpha 0 is EASY, in the closed loop too.
"$BFD" --site "$TMP/kth.model" --users 60 --days 21 --policy easy --jobs-out "$TMP/e.swf" >/dev/null &&
	"$BFD" --site "$TMP/kth.model" --users 60 --days 21 --policy creasy --alpha 0 --jobs-out "$TMP/c0.swf" >/dev/null &&
	grep -v '^;' "$TMP/e.swf" >"$TMP/e.jobs" && grep -v '^;' "$TMP/c0.swf" >"$TMP/c0.jobs" &&
	[ -s "$TMP/e.jobs" ] && cmp -s "$TMP/e.jobs" "$TMP/c0.jobs"
ok $? "creasy with alpha 0: EASY's simulation, job for job"

# The experiment (backfilld(8), EXAMPLES): a CSV row per cell and two plots.
"$BFD" --site "$TMP/kth.model" --users 50,100,150 --days 14 --policy easy,creasy --alpha 100,1000 \
	--seeds 1..2 --format csv --plot-throughput "$TMP/tp.svg" --plot-sessions "$TMP/ses.svg" \
	>"$TMP/exp.csv" 2>"$TMP/err"
ok $? "the experiment runs"
[ "$(grep -c . "$TMP/exp.csv")" -eq 19 ] && head -1 "$TMP/exp.csv" | grep -q "^users,days,policy,alpha,seed,nodes,throughput_jobs_per_hour,session_length_jobs"
ok $? "its CSV: a header and 18 rows (easy, creasy at two alphas, 3 user counts, 2 seeds)"
"$XMLCHECK" "$TMP/tp.svg" && "$XMLCHECK" "$TMP/ses.svg" &&
	[ "$(grep -c 'class="series"' "$TMP/tp.svg")" -eq 3 ] && grep -q 'data-name="creasy, alpha 1000"' "$TMP/ses.svg"
ok $? "its plots: well-formed SVG, a line per policy and alpha"
# Each point of a plot is the mean of its seeds' rows.
want=$(awk -F, '$3 == "creasy" && $4 == 1000 && $1 == 100 { s += $7; n++ } END { printf "%.4f", s / n }' "$TMP/exp.csv")
got=$(tr '<' '\n' <"$TMP/tp.svg" | sed -n '/data-name="creasy, alpha 1000"/,/<\/g>/p' | tr '\n' '<' | grep -o 'data-x="100" data-y="[0-9.]*"' | sed 's/.*data-y="\([0-9.]*\)"/\1/')
awk -v a="$want" -v b="$got" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b != "" && d < 0.001) }'
ok $? "a plot's point is the mean over the seeds (creasy 1000, 100 users: $got, rows' mean $want)"

# Bad input.
printf 'backfilld-site-model 1\nnodes 10\nwidth 1 1\nrun 4 2 1\njob 4 60 -1 1\njob 4 x 60 1\nthink 10\nbogus 1\n' >"$TMP/bad.model"
"$BFD" --site "$TMP/bad.model" --users 1 --days 1 >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "bad.model:6: job: a number out of range or not a whole number" "$TMP/err" &&
	grep -q "bad.model:7: think: too few numbers" "$TMP/err" && grep -q "bad.model:8: unknown key 'bogus'" "$TMP/err" &&
	! grep -q "bad.model:5:" "$TMP/err"
ok $? "a bad model file: each bad line as FILE:LINE (an estimate of -1 is 'none')"
printf 'nodes 10\n' >"$TMP/nomagic.model"
"$BFD" --site "$TMP/nomagic.model" --users 1 --days 1 >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "nomagic.model:1: not a site model; make one with --characterize" "$TMP/err"
ok $? "a file that is not a model: said at line 1"
"$BFD" --site "$BF_OWN_TRACES/KTH-SP2-1996-2.1-cln.swf.gz" --users 1 --days 1 >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	grep -q "KTH-SP2-1996-2.1-cln.swf.gz:1: not a site model; make one with --characterize TRACE --model-out FILE" "$TMP/err"
ok $? "a trace given to --site: one line, saying how to make a model ($(cat "$TMP/err"))"
gunzip -c "$BF_OWN_TRACES/KTH-SP2-1996-2.1-cln.swf.gz" | head -50 >"$TMP/plain.swf"
"$BFD" --site "$TMP/plain.swf" --users 1 --days 1 >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "plain.swf:1: not a site model" "$TMP/err"
ok $? "  an uncompressed trace too"
"$BFD" --characterize "$BF_TOP/README.md" >/dev/null 2>"$TMP/err"
[ $? -ne 0 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^backfilld: not an SWF trace: .*README.md:1: " "$TMP/err"
ok $? "--characterize of a file that is not a trace: one line ($(cat "$TMP/err"))"
# Hostile model files: a valid one with a field of each line at random
# replaced (a huge, negative or garbled number, a missing or extra field):
# each is read or refused, never a crash.
crashed=0 read_ok=0
for i in $(seq 1 40); do
	awk 'NR <= 4 || $1 == "width" || NR % 40 == 0' "$TMP/kth.model" | awk -v seed="$i" 'BEGIN { srand(seed); split("99999999999999999999 -7 0 1e3 x - 18446744073709551616 2147483648", w, " ") }
		NR > 2 && rand() < 0.003 { k = 1 + int(rand() * NF); if (rand() < 0.2) $0 = $0 " 5"; else if (rand() < 0.2) $k = ""; else $k = w[1 + int(rand() * 8)] }
		{ print }' >"$TMP/fuzz.model"
	"$BFD" --site "$TMP/fuzz.model" --users 3 --days 2 >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] && read_ok=$((read_ok + 1))
	[ $rc -le 1 ] || { crashed=$((crashed + 1)); echo "# model $i: exit $rc"; sed 's/^/#   /' "$TMP/err" | head -3; }
done
[ $crashed -eq 0 ] && [ $read_ok -gt 0 ] && [ $read_ok -lt 40 ]
ok $? "40 model files with garbled fields: each read or refused (exit 0 or 1), none crashed ($read_ok simulated)"
# Zero think times and zero runtimes: the clock still moves on (a gap is at
# least a second), and the simulation ends; breaks under 20 minutes are
# not breaks.
printf 'backfilld-site-model 1\nnodes 4\nthink 0 1\nwidth 3 1\nrun 1 1 1\njob 1 0 -1 1\n' >"$TMP/zero.model"
timeout 60 "$BFD" --site "$TMP/zero.model" --users 2 --days 1 --format json >"$TMP/zero.json" 2>"$TMP/err"
[ $? -eq 0 ] && [ "$(json_num "$TMP/zero.json" jobs_submitted)" -gt 50 ]
ok $? "a model of zero think times and zero runtimes ends ($(json_num "$TMP/zero.json" jobs_submitted) jobs in a day)"
printf 'backfilld-site-model 1\nnodes 4\nbreak 0 1\nthink 1201 1\nwidth 1 1\nrun 1 1 1\njob 1 5 -1 1\n' >"$TMP/gaps.model"
"$BFD" --site "$TMP/gaps.model" --users 2 --days 1 >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "gaps.model:3: break: a number out of range" "$TMP/err" &&
	grep -q "gaps.model:4: think: a number out of range" "$TMP/err"
ok $? "a break under 20 minutes and a think time over 20 minutes: refused"
"$BFD" --jobs-out --site >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "needs a model file" "$TMP/err"
ok $? "--site without its model (it was taken as --jobs-out's file): a usage error"
"$BFD" --site "$TMP/kth.model" --days 1 >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "needs --users N and --days D" "$TMP/err"
ok $? "--site without --users: a usage error"
"$BFD" --site "$TMP/kth.model" --users 5 --days 1 --policy creasy >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "needs --alpha" "$TMP/err"
ok $? "--policy creasy without --alpha: a usage error"
for bad in "--users 0" "--users x" "--days 0" "--days 4000" "--alpha -1" "--nodes 0" "--format xml"; do
	# shellcheck disable=SC2086
	"$BFD" --site "$TMP/kth.model" --users 5 --days 1 --policy creasy --alpha 1 $bad >/dev/null 2>"$TMP/err"
	[ $? -eq 2 ] && grep -q "^backfilld: --" "$TMP/err"
	ok $? "$bad: a usage error ($(head -1 "$TMP/err"))"
done
"$BFD" --characterize "$TMP/nope.swf" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "nope.swf" "$TMP/err"
ok $? "--characterize of a missing file: said"
"$BFD" --characterize "$f" --users 5 >/dev/null 2>"$TMP/err"
[ $? -eq 2 ]
ok $? "--characterize with a simulation option: a usage error"
done_testing
