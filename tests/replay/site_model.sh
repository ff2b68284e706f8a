# The site model as Shmueli and Feitelson state it (backfilld(8), SITE
# SIMULATION): think times from the end of the user's previous job, a job
# submitted before that end joining its batch; breaks over 8 hours left
# out, not counted at 8 hours; several traces pooled into one model; a
# job's runtime drawn whatever its size (or for it, --job-mix joint); the
# estimates the trace's or exact; the user reacting to the last job of its
# batch, not waiting for all; and a sweep over seeds summarized with its
# intervals and the gain paired by seed.
. "$BF_TOP/tests/lib.sh"

# One user (7). Job 1 runs 0..100; job 2 comes at 50, before job 1's end:
# one batch. Job 3 comes at 160, 100 s after job 2 (its previous job)
# ended at 60: a think time of 100 s (measured from the latest end, 100,
# it would be 60). Job 4 comes an hour after job 3's end: a break. Job 5
# comes 10 hours after job 4's end: a break over 8 hours, left out.
cat >"$TMP/one.swf" <<'EOF'
; MaxProcs: 16
1 0 0 100 4 -1 -1 4 200 -1 1 7 1 -1 -1 -1 -1 -1
2 50 0 10 4 -1 -1 4 20 -1 1 7 1 -1 -1 -1 -1 -1
3 160 0 40 8 -1 -1 8 50 -1 1 7 1 -1 -1 -1 -1 -1
4 3800 0 30 8 -1 -1 8 60 -1 1 7 1 -1 -1 -1 -1 -1
5 39830 0 30 2 -1 -1 2 60 -1 1 7 1 -1 -1 -1 -1 -1
EOF
"$BFD" --characterize "$TMP/one.swf" --model-out "$TMP/one.model" >"$TMP/sum.txt" 2>"$TMP/err"
ok $? "characterize a one-user trace"
grep -qx "think 100 1" "$TMP/one.model" && [ "$(grep -c '^think' "$TMP/one.model")" -eq 1 ]
ok $? "the think time runs from the end of the previous job (100 s), not the latest end"
grep -qx "break 3600 1" "$TMP/one.model" && [ "$(grep -c '^break' "$TMP/one.model")" -eq 1 ]
ok $? "a break of an hour is kept; one of 10 hours is left out, not counted at 8 hours"
grep -qx "width 2 1" "$TMP/one.model" && grep -qx "width 1 3" "$TMP/one.model"
ok $? "job 2, submitted before job 1 ended, is in job 1's batch (widths 2, 1, 1, 1)"
grep -q "^trace  *5 jobs of 1 users, 3 sessions" "$TMP/sum.txt" &&
	grep -q "1 breaks over 8 h, left out" "$TMP/sum.txt"
ok $? "the summary: 3 sessions, and the break left out said"
grep -q "^think times  *1, mean 1.7 min, median 1.7 min, p90 1.7 min$" "$TMP/sum.txt" &&
	grep -q "^breaks  *1, mean 1.0 h, median 1.0 h, p90 1.0 h$" "$TMP/sum.txt" &&
	grep -q "^ *(from the end of a user's job to its next submission" "$TMP/sum.txt" &&
	grep -q "^ *(jobs submitted before the previous one ended" "$TMP/sum.txt"
ok $? "the summary: every figure with its unit, and what a think time and a batch are"

# Two traces pooled: jobs and users add up, the machine is the larger one.
sed 's/ 7 1 -1/ 9 1 -1/; s/MaxProcs: 16/MaxProcs: 64/' "$TMP/one.swf" >"$TMP/two.swf"
"$BFD" --characterize "$TMP/one.swf,$TMP/two.swf" --model-out "$TMP/pool.model" >"$TMP/sum2.txt" 2>"$TMP/err"
ok $? "characterize two traces pooled"
grep -q "^trace  *10 jobs of 2 users, 6 sessions" "$TMP/sum2.txt" && grep -qx "nodes 64" "$TMP/pool.model" &&
	grep -qx "source one.swf + two.swf" "$TMP/pool.model" && grep -qx "think 100 2" "$TMP/pool.model"
ok $? "the pool: 10 jobs of 2 users, the larger machine (64), both traces named"
"$BFD" --characterize "$TMP/one.swf,$TMP/missing.swf" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "missing.swf" "$TMP/err"
ok $? "a missing trace in the list: refused, named"

# A model whose 1-node jobs run 10 s and 64-node jobs 5000 s, estimates
# twice that. Joint: every 1-node job runs 10 s; independent (the paper's):
# runtimes are drawn whatever the size.
cat >"$TMP/mix.model" <<'EOF'
backfilld-site-model 1
nodes 128
think 60 1
break 3600 1
width 2 1
run 1 1 1
run 64 1 1
job 1 10 20 1
job 64 5000 10000 1
EOF
for mix in joint independent; do
	"$BFD" --site "$TMP/mix.model" --users 20 --days 7 --job-mix "$mix" --jobs-out "$TMP/$mix.swf" \
		>"$TMP/$mix.txt" 2>"$TMP/err" || echo "# $mix: $(cat "$TMP/err")"
done
awk '!/^;/ && $5 == 1 && $4 != 10 { bad++ } !/^;/ && $5 == 1 { n++ } END { exit !(n > 100 && bad == 0) }' "$TMP/joint.swf"
ok $? "--job-mix joint: every 1-node job has the 1-node runtime"
awk '!/^;/ && $5 == 1 && $4 == 5000 { a++ } !/^;/ && $5 == 64 && $4 == 10 { b++ } END { exit !(a > 20 && b > 20) }' "$TMP/independent.swf" &&
	grep -q "whatever the size (independent)" "$TMP/independent.txt"
ok $? "independent (the default): runtimes whatever the size, and the report says so"
awk '!/^;/ && $9 != 2 * $4 { bad++ } END { exit bad > 0 }' "$TMP/independent.swf"
ok $? "estimates: the trace's, drawn with the runtime"
"$BFD" --site "$TMP/mix.model" --users 20 --days 7 --estimates exact --jobs-out "$TMP/exact.swf" >/dev/null &&
	awk '!/^;/ && $9 != $4 { bad++ } !/^;/ { n++ } END { exit !(n > 100 && bad == 0) }' "$TMP/exact.swf"
ok $? "--estimates exact: every estimate is the runtime"

# Batches of two jobs at once: the user's next batch waits for the end of
# the batch's last job (the second, in submission order) and for nothing
# else; it often comes while the first, a long one, still runs.
awk '!/^;/ { print $12, $2, $2 + $3 + $4 }' "$TMP/independent.swf" | sort -n -k1,1 -k2,2 -s >"$TMP/u.txt"
awk '{ if ($1 != u) { u = $1; ps = -1; ls = -1 }
	if ($2 != ps) {	# a new batch: after the last batch'"'"'s last end, before its other ends
		if (ps >= 0 && $2 < lastend) bad++
		if (ps >= 0 && $2 < otherend) early++
		ps = $2; otherend = $3; k = 0 }
	else { otherend = lastend }
	lastend = $3 }
	END { printf "%d %d\n", bad, early }' "$TMP/u.txt" >"$TMP/react.txt"
read -r bad early <"$TMP/react.txt"
[ "$bad" -eq 0 ] && [ "$early" -gt 0 ]
ok $? "a batch comes after the end of the last batch's last job ($bad before), $early times before its first ended"

# A sweep over seeds: one line per setting with its interval, and the
# gain over the first setting paired by seed.
"$BFD" --site "$TMP/mix.model" --users 20 --days 7 --policy easy,creasy --alpha 3000 --seeds 1..4 \
	>"$TMP/sum.txt" 2>"$TMP/err" &&
	"$BFD" --site "$TMP/mix.model" --users 20 --days 7 --policy easy,creasy --alpha 3000 --seeds 1..4 \
	--format csv >"$TMP/rows.csv" &&
	"$BFD" --site "$TMP/mix.model" --users 20 --days 7 --policy easy,creasy --alpha 3000 --seeds 1..4 \
	--format json >"$TMP/sum.json"
ok $? "a sweep of 2 settings over 4 seeds: text, csv and json"
[ "$(grep -c '^easy \|^creasy 3000 ' "$TMP/sum.txt")" -eq 2 ] && [ "$(grep -c . "$TMP/rows.csv")" -eq 9 ] &&
	grep -q "95% interval across seeds" "$TMP/sum.txt"
ok $? "text: one line per setting (not one report per run); csv: a row per run"
mean=$(awk -F, '$3 == "easy" { s += $7; n++ } END { printf "%.2f", s / n }' "$TMP/rows.csv")
grep -q "^easy  *20  *$mean ±" "$TMP/sum.txt"
ok $? "the line's throughput is the mean of its runs ($mean) with its interval"
gain=$(awk -F, '$3 == "easy" { e[$5] = $7 } $3 == "creasy" { c[$5] = $7 } END { for (s in e) { g += c[s] / e[s] - 1; n++ } printf "%+.1f%%", 100 * g / n }' "$TMP/rows.csv")
grep "^creasy 3000 " "$TMP/sum.txt" | grep -q -- "$gain ±"
ok $? "creasy's gain is the mean of the paired per-seed ratios ($gain)"
grep -q '"throughput_gain_vs_first": {' "$TMP/sum.json" && grep -q '"ci95_lo": ' "$TMP/sum.json" &&
	[ "$(grep -c '"policy": ' "$TMP/sum.json")" -eq 2 ]
ok $? "json: each setting's figures with mean, sd and interval, the gain for the second"

# Bad values.
"$BFD" --site "$TMP/mix.model" --users 1 --days 1 --job-mix both >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "expected independent or joint" "$TMP/err"
ok $? "--job-mix both: a usage error"
"$BFD" --site "$TMP/mix.model" --users 1 --days 1 --estimates f=2 >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "expected trace or exact with --site" "$TMP/err"
ok $? "--estimates f=2 with --site: a usage error"
"$BFD" --characterize "$TMP/one.swf" --job-mix joint >/dev/null 2>"$TMP/err"
[ $? -eq 2 ]
ok $? "--job-mix with --characterize: a usage error (it is the simulation's)"
done_testing
