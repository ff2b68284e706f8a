# Workflows in replay: SWF fields 17 (preceding job) and 18 (think time),
# --dependencies trace|none. A hand-made chain whose schedules are worked
# out below by hand, with and without; the references that cannot be
# honoured, counted by reason; the order of arrivals at one instant; a
# zero-length predecessor; the reports; a trace without field 17 replays
# as before. No real trace here sets field 17 (every one has -1 in fields
# 17 and 18), so the large check is on KTH-SP2 with its users' sessions
# written into fields 17 and 18.
. "$BF_TOP/tests/lib.sh"

W="$BF_TOP/tests/replay/workflow.swf"
K=$(trace KTH-SP2-1996-2.1-cln.swf.gz)	# shipped in traces/
cd "$TMP" || exit 1

# starts FILE: "job:submit:wait" of every job of a --jobs-out file, in order.
starts() { awk '!/^;/ { printf "%s%s:%s:%s", sep, $1, $2, $3; sep = " " } END { print "" }' "$1"; }
# wjob NUM SUBMIT RUN PROCS EST PRED THINK [STATUS]: one SWF line.
wjob() { echo "$1 $2 -1 $3 $4 -1 -1 $4 $5 -1 ${8:-1} 1 1 -1 -1 -1 $6 $7"; }
# dep FILE KEY: a number of the JSON report's dependencies object.
dep() { sed -n "/\"dependencies\": {/,/^  }/s/^ *\"$2\": *\([0-9.]*\),*\$/\1/p" "$1"; }

# ---- the hand-made chain (workflow.swf; easy, 4 processors) ---------------
# With dependencies: 1 runs [0, 100). 4 arrives at 50 and starts at 100.
# 1's end releases 2 at 100 + 20 s of think time = 120; it starts at once
# (2 processors free) and ends at 170, which releases 3 at 170 (no think
# time). 5 arrived at 130 and waited for 2's nodes: at 170 it is ahead of
# 3 in the queue and starts; 3 starts when 5 ends, at 270: a wait of 100 s
# from its effective submit time 170 (not 250 from its own, 20).
# 11 follows 10 (ends at 1010) after 5 s: submitted and started at 1015.
"$BFD" --replay "$W" --jobs-out d.swf --format json >d.json 2>err
ok $? "the chain replays with its dependencies (the default for this trace)"
want="1:0:0 2:120:0 3:170:100 4:50:50 5:130:40 6:1000:0 7:1000:0 9:1000:0 10:1000:0 11:1015:0"
[ "$(starts d.swf)" = "$want" ]
ok $? "with dependencies: the submit times and waits worked out by hand ($(starts d.swf))"
# Without: 2 and 3 queue from 10 and 20 and start at 100 when 1 ends; 4
# starts at 130 when 3 ends (its estimate said 140: EASY's shadow), 5 at
# 150 when 2 ends; 11 queues behind 6, 7, 9 and 10 at 1000 and starts at
# 1010.
"$BFD" --replay "$W" --dependencies none --jobs-out n.swf --format json >n.json
want="1:0:0 2:10:90 3:20:80 4:50:80 5:130:20 6:1000:0 7:1000:0 9:1000:0 10:1000:0 11:1000:10"
[ "$(starts n.swf)" = "$want" ]
ok $? "--dependencies none: every job at its own submit time, as worked out ($(starts n.swf))"
"$BFD" --replay "$W" --dependencies trace --jobs-out t.swf >/dev/null && cmp -s d.swf t.swf
ok $? "--dependencies trace is the default for a trace whose jobs name earlier ones"
[ "$(json_num d.json wait_max_s)" = 100.000000 ] && [ "$(json_num d.json wait_avg_s)" = 19.000000 ]
ok $? "waits count from the effective submit time (3 waited 100 s, not 250; average 19 s)"

# ---- counts: with_predecessor = honoured + every reason ------------------------
# 2, 3 and 11 are honoured; 6 names a job that is not in the trace and 7 a
# later line (not_earlier); 9 names 8, skipped as too large (not_replayed);
# 10 has a think time beyond 100 years (bad_think).
[ "$(dep d.json with_predecessor)" = 7 ] && [ "$(dep d.json honoured)" = 3 ] &&
	[ "$(dep d.json not_earlier)" = 2 ] && [ "$(dep d.json not_replayed)" = 1 ] &&
	[ "$(dep d.json bad_think)" = 1 ] && [ "$(dep d.json off)" = 0 ] &&
	grep -q '"mode": "trace"' d.json
ok $? "JSON: 7 with a predecessor, 3 honoured, 2 not_earlier, 1 not_replayed, 1 bad_think"
[ "$(dep d.json delayed)" = 3 ] && [ "$(dep d.json delay_avg_s)" = 91.666667 ]
ok $? "JSON: 3 delayed, by (110 + 150 + 15) / 3 s on average"
[ "$(dep n.json honoured)" = 0 ] && [ "$(dep n.json off)" = 3 ] && [ "$(dep n.json not_earlier)" = 2 ] &&
	grep -q '"mode": "none"' n.json && [ "$(dep n.json delayed)" = 0 ]
ok $? "JSON with none: nothing honoured, the 3 that would have been counted as off"
"$BFD" --replay "$W" >d.txt
grep -q "^dependencies  trace (fields 17 and 18 honoured): 7 jobs had a predecessor (4 of them ignored: not_earlier 2, not_replayed 1, bad_think 1)$" d.txt &&
	grep -q "^  *3 submitted after their own submit time, 91.7 s later on average; waits count from then$" d.txt
ok $? "text: N jobs had a predecessor (M of them ignored: by reason), and the delay"
grep -q "^; backfilld: dependencies trace (fields 17 and 18): field 2 is the effective submit time" d.swf
ok $? "--jobs-out says field 2 is the effective submit time"
"$BFD" --replay "$W" --dependencies none | grep -q "^dependencies  none (fields 17 and 18 not honoured): 7 jobs had a predecessor (7 of them ignored: not_earlier 2, not_replayed 1, bad_think 1, off 3)$"
ok $? "text with none: every one ignored, 3 of them because of the option"
for p in fcfs easy conservative; do
	"$BFD" --replay "$W" --policy "$p" --check >/dev/null &&
		"$BFD" --replay "$W" --policy "$p" --per-event --check >/dev/null
	ok $? "$p: the chain replays with every invariant checked (per instant and per event)"
done

# ---- the order of arrivals at one instant ---------------------------------------
# fcfs on 2 processors, every job takes both. 2 and 5 follow 1 (own submit
# times 0), 4 comes at 50, 3 at 100. 1 ends at 100 and releases 2 and 5 at
# that instant: arrivals at 100 in the order of their own submit times,
# then file order: 2, 5 (own 0), then 3 (own 100), all behind 4.
{
	echo "; MaxProcs: 2"
	wjob 1 0 100 2 100 -1 -1; wjob 2 0 10 2 10 1 0; wjob 3 100 10 2 10 -1 -1
	wjob 4 50 10 2 10 -1 -1; wjob 5 0 10 2 10 1 0
} >tie.swf
"$BFD" --replay tie.swf --policy fcfs --check --jobs-out tie.out >/dev/null
[ "$(starts tie.out)" = "1:0:0 2:100:10 3:100:30 4:50:50 5:100:20" ]
ok $? "same instant: released jobs by own submit time then file order, among the others ($(starts tie.out))"
"$BFD" --replay tie.swf --policy fcfs --dependencies none --jobs-out tie.n >/dev/null
[ "$(starts tie.n)" = "1:0:0 2:0:100 3:100:30 4:50:70 5:0:110" ]
ok $? "without: 2 and 5 queue from 0, ahead of 4 ($(starts tie.n))"
for i in 1 2; do "$BFD" --replay tie.swf --policy fcfs --jobs-out "tie.$i" >/dev/null; done
cmp -s tie.1 tie.2 && cmp -s tie.1 tie.out
ok $? "the same trace gives the same schedule every time"

# ---- a predecessor that never ran: it left the system at its start ---------------
# 2 was cancelled (status 5, run time 0): it queues behind 1, starts and
# ends at 50. 3 follows it after 30 s: submitted at 80, starts at once.
{
	echo "; MaxProcs: 2"
	wjob 1 0 50 2 50 -1 -1; wjob 2 10 0 1 10 -1 -1 5; wjob 3 20 10 2 10 2 30
} >cancel.swf
"$BFD" --replay cancel.swf --check --jobs-out cancel.out >/dev/null
[ "$(starts cancel.out)" = "1:0:0 2:10:40 3:80:0" ]
ok $? "a zero-length predecessor ends when it leaves the system ($(starts cancel.out))"

# ---- the default, and usage ---------------------------------------------------------
# Only references to later or unknown jobs: nothing to honour, so the
# default is none; the report still counts them.
{ echo "; MaxProcs: 2"; wjob 1 0 10 1 10 2 -1; wjob 2 0 10 1 10 7 -1; } >fwd.swf
"$BFD" --replay fwd.swf --format json >fwd.json
grep -q '"mode": "none"' fwd.json && [ "$(dep fwd.json not_earlier)" = 2 ] && [ "$(dep fwd.json off)" = 0 ]
ok $? "default with no earlier job named: none, the 2 references counted as not_earlier"
for v in bogus "" TRACE auto; do
	"$BFD" --replay "$W" --dependencies "$v" >out 2>err
	[ $? -eq 2 ] && [ ! -s out ] && grep -q -- "^backfilld: --dependencies $v: expected trace .* or none$" err
	ok $? "--dependencies '$v': exit 2, saying what it takes"
done
"$BFD" --replay "$W" --dependencies 2>err; [ $? -eq 2 ] && grep -q "option --dependencies needs a value" err
ok $? "--dependencies without a value: exit 2"
"$BFD" --help | grep -q -- "--dependencies trace|none"
ok $? "--help names --dependencies"

# ---- what-if tools on the chain -------------------------------------------------------
"$BFD" --replay "$W" --compare easy,conservative >cmp.txt &&
	grep -q "^dependencies trace: 7 jobs had a predecessor, 3 honoured" cmp.txt
ok $? "--compare honours them too and says so"
"$BFD" --replay "$W" --policy easy,fcfs --format csv --parallel 1 >sw.csv &&
	head -1 sw.csv | grep -q ',wall_s,dependencies,with_predecessor,honoured,delayed$' &&
	[ "$(grep -c ',trace,7,3,3$' sw.csv)" -eq 2 ]
ok $? "a sweep honours them in every cell, with the counts in columns after wall_s"
"$BFD" --replay "$W" --policy easy,fcfs --dependencies none --format json >sw.json &&
	[ "$(grep -c '"dependencies": "none"' sw.json)" -eq 4 ]
ok $? "a sweep's JSON names the setting in every cell and summary"

# ---- a trace without field 17 is replayed as before ---------------------------------
"$BFD" --replay "$K" --format json --jobs-out k.swf >k.json && "$BFD" --replay "$K" >k.txt &&
	! grep -q dependencies k.json k.txt k.swf
ok $? "KTH (no field 17): no dependencies in the reports or --jobs-out"
"$BFD" --replay "$K" --dependencies trace --jobs-out kt.swf >kt.txt &&
	"$BFD" --replay "$K" --dependencies none --jobs-out kn.swf >/dev/null
grep -v '^;' k.swf >k.jobs; grep -v '^;' kt.swf >kt.jobs; grep -v '^;' kn.swf >kn.jobs
cmp -s k.jobs kt.jobs && cmp -s k.jobs kn.jobs
ok $? "KTH: trace, none and the default give the same schedule"
grep -q "^dependencies  trace (fields 17 and 18 honoured): 0 jobs had a predecessor$" kt.txt
ok $? "KTH with --dependencies given: the report says no job had a predecessor"
"$BFD" --replay "$K" --policy easy,conservative --format csv --parallel 1 | head -1 | grep -q ',wall_s$'
ok $? "KTH sweep: the CSV columns are as before"

# ---- KTH with its users' sessions as workflows ----------------------------------------
# A job submitted at most 20 minutes after the end (in the log) of its
# user's previous job follows that job, the gap as think time.
zcat "$K" | awk '
	/^;/ { print; next }
	{ u = $12; end = $2 + ($3 > 0 ? $3 : 0) + $4
	  if ((u in last) && $2 >= lend[u] && $2 - lend[u] <= 1200) { $17 = last[u]; $18 = $2 - lend[u] }
	  last[u] = $1; lend[u] = end; print }' >kwf.swf
links=$(awk '!/^;/ && $17 > 0' kwf.swf | wc -l)
for p in easy conservative; do
	"$BFD" --replay kwf.swf --policy "$p" --check --format json --jobs-out "kwf-$p.swf" >"kwf-$p.json" 2>err
	ok $? "KTH sessions, $p: replays with every invariant checked"
	[ "$(dep "kwf-$p.json" with_predecessor)" -eq "$links" ] &&
		[ "$(dep "kwf-$p.json" honoured)" -eq $((links - 1)) ] && [ "$(dep "kwf-$p.json" not_replayed)" -eq 1 ]
	ok $? "KTH sessions, $p: $links with a predecessor, all honoured but the one after the skipped job"
	# Every job's submit time in the replay is max(its own, its preceding
	# job's end in the replay + think time), from --jobs-out alone.
	awk 'NR == FNR { if (!/^;/) own[$1] = $2; next }
	     /^;/ { next }
	     { end[$1] = $2 + $3 + $4; w = own[$1]
	       if ($17 > 0 && ($17 in end)) { t = end[$17] + ($18 > 0 ? $18 : 0); if (t > w) w = t }
	       if ($2 != w) bad++ }
	     END { exit bad > 0 }' kwf.swf "kwf-$p.swf"
	ok $? "KTH sessions, $p: every submit time is max(its own, preceding end + think)"
done
"$BFD" --replay kwf.swf --dependencies none --jobs-out kwf-none.swf >/dev/null
cut -d' ' -f1-16 k.jobs >a.cut
grep -v '^;' kwf-none.swf | cut -d' ' -f1-16 >b.cut
cmp -s a.cut b.cut
ok $? "KTH sessions with --dependencies none: KTH's own schedule, job for job"
a=$(json_num kwf-easy.json wait_avg_s); b=$(json_num k.json wait_avg_s)
[ "$a" != "$b" ]
ok $? "KTH sessions: honouring them changes the schedule (average wait $a s against $b s)"
done_testing
