# The plots as a reader sees them (backfilld-whatif(7), PLOTS): every kind
# (a sweep on a log axis and on a linear one, a single replay's time line,
# a comparison by month and over seeds, the site study's two) made from
# the shipped KTH-SP2 trace, kept small (ten days of it); each one valid
# SVG, its title naming the trace, the policy and the metric in full, its
# x ticks the swept values and nothing else, an error bar on each mean
# whose seeds differ, the time line's two axes; each rendered to PNG with
# rsvg-convert when it is installed (Debian's librsvg2-bin). A plot file
# not named *.svg is refused in one line.
. "$BF_TOP/tests/lib.sh"

K=$(trace KTH-SP2-1996-2.1-cln.swf.gz)	# shipped in traces/
KB=$(basename "$K")
XMLCHECK="$BF_BUILD/tests/bf_xmlcheck"
SMALL="--to +10d --parallel 1"
cd "$TMP" || exit 1

# title FILE: the title's text; xticks FILE, y2ticks FILE: the tick labels,
# space-separated, in order; count FILE CLASS: elements of that class.
title() { sed -n 's/.*class="title"[^>]*>\([^<]*\)<.*/\1/p' "$1"; }
xticks() { sed -n 's/.*class="xtick"[^>]*>\([^<]*\)<.*/\1/p' "$1" | tr '\n' ' ' | sed 's/ $//'; }
count() { grep -c "class=\"$2\"" "$1"; }
# has FILE TEXT: the title contains TEXT (a fixed string).
has() { title "$1" | grep -qF -- "$2"; }
# valid FILE: well-formed by the project's checker, and by xmllint if here.
valid() {
	"$XMLCHECK" "$1" || return 1
	if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$1" || return 1; fi
}
# field FILE NAME: a column of a CSV, by the header's name.
field() {
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
	                      { print $c }' "$1"
}
# spread FILE KEY VALUE: how many settings (by column KEY) have more than
# one VALUE over their seeds: the error bars the plot must have.
spread() {
	field "$1" "$2" >k.col; field "$1" "$3" >v.col
	paste -d, k.col v.col | sort -u | cut -d, -f1 | uniq -d | wc -l | tr -d ' '
}

plots=""

# ---- a sweep over F on a log axis, with seeds -------------------------------------
"$BFD" --replay "$K" $SMALL --estimates f=1,f=2,f=4,f=11,f=31,f=101,f=301 --seeds 1..3 \
	--format csv --plot f.svg >f.csv 2>err
ok $? "sweep over F with seeds: runs and plots"
plots="$plots f.svg"
valid f.svg
ok $? "sweep over F: valid SVG"
has f.svg "$KB" && has f.svg "average bounded slowdown, tau 10 s" && has f.svg ", easy" &&
	has f.svg "mean of 3 seeds, 95% CI"
ok $? "sweep over F: the title names the trace, the metric in full, the policy, the seeds ($(title f.svg))"
[ "$(xticks f.svg)" = "1 2 4 11 31 101 301" ]
ok $? "sweep over F: the x ticks are the swept values and nothing else ($(xticks f.svg))"
want=$(spread f.csv estimates bsld_avg); got=$(count f.svg errbar)
[ "$want" -ge 1 ] && [ "$got" -eq "$want" ]
ok $? "sweep over F: an error bar on each mean whose seeds differ ($got, want $want; f=1 does not use the seed)"
grep -q 'class="ylabel"[^>]*>average bounded slowdown, tau 10 s<' f.svg
ok $? "sweep over F: the y axis says what it is"
# A point is the mean over its seeds: f=4's three rows against its point.
want=$(awk -F, 'NR > 1 && $4 == "f=4" { s += $26; n++ } END { printf "%.6g", s / n }' f.csv)
got=$(sed -n 's/.*data-x="4" data-y="\([^"]*\)".*/\1/p' f.svg)
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d < 1e-4 * b && -d < 1e-4 * b) }'
ok $? "sweep over F: the point is the mean of its seeds' rows ($got, $want)"

# ---- a sweep on a linear axis, two policies -------------------------------------------
"$BFD" --replay "$K" $SMALL --load 0.8,1,1.25 --policy easy,conservative --plot-metric wait \
	--plot load.svg >/dev/null 2>err
ok $? "sweep over the load: runs and plots"
plots="$plots load.svg"
valid load.svg && has load.svg "$KB: average wait time" && ! has load.svg "easy"
ok $? "sweep over the load: valid, the title names the trace and the metric, no single policy ($(title load.svg))"
[ "$(xticks load.svg)" = "0.8 1 1.25" ]
ok $? "sweep over the load: the x ticks are the swept values ($(xticks load.svg))"
[ "$(count load.svg errbar)" -eq 0 ]
ok $? "sweep without seeds: no error bar"
grep -q 'class="ylabel"[^>]*>average wait time (s)<' load.svg
ok $? "sweep over the load: the y axis has its unit"

# ---- one replay's time line: two axes ---------------------------------------------------
"$BFD" --replay "$K" $SMALL --policy conservative --plot tl.svg >/dev/null 2>err
ok $? "time line: runs and plots"
plots="$plots tl.svg"
valid tl.svg && has tl.svg "$KB" && has tl.svg "conservative" && has tl.svg "utilization and queue length"
ok $? "time line: valid, the title names the trace, the policy and both figures ($(title tl.svg))"
grep -q 'class="ylabel"[^>]*>utilization (%)<' tl.svg &&
	grep -q 'class="y2label"[^>]*>queue length (jobs waiting)<' tl.svg
ok $? "time line: utilization (%) on the left axis, the queue length on the right, each with its label"
[ "$(count tl.svg ytick)" -ge 3 ] && [ "$(count tl.svg y2tick)" -ge 3 ]
ok $? "time line: each axis has its own ticks ($(count tl.svg ytick) left, $(count tl.svg y2tick) right)"

# ---- a comparison by month --------------------------------------------------------------------
"$BFD" --replay "$K" --to +60d --compare easy,conservative --plot months.svg >/dev/null 2>err
ok $? "comparison by month: runs and plots"
plots="$plots months.svg"
valid months.svg && has months.svg "$KB: average bounded slowdown, tau 10 s, by month of submission"
ok $? "comparison by month: valid, the title names the trace and the metric ($(title months.svg))"
"$BFD" --replay "$K" --to +60d --compare easy,exact --plot-metric response --plot mr.svg >/dev/null 2>err &&
	has mr.svg "average response time" && has mr.svg ", easy"
ok $? "comparison of estimates under one policy: the title names it ($(title mr.svg))"

# ---- a comparison over seeds -----------------------------------------------------------------
"$BFD" --replay "$K" $SMALL --compare easy/f=4,conservative/f=4 --seeds 1..4 --plot cs.svg \
	>/dev/null 2>err
ok $? "comparison over seeds: runs and plots"
plots="$plots cs.svg"
valid cs.svg && has cs.svg "$KB: average bounded slowdown, tau 10 s" && has cs.svg "mean of 4 seeds, 95% CI"
ok $? "comparison over seeds: valid, the title names the trace, the metric and the interval ($(title cs.svg))"
[ "$(count cs.svg bar)" -eq 2 ] && [ "$(count cs.svg errbar)" -eq 2 ]
ok $? "comparison over seeds: a bar per side, each with its error bar (f=4 draws with the seed)"

# ---- the site study ---------------------------------------------------------------------------------
"$BFD" --characterize "$K" --model-out kth.model >/dev/null 2>err &&
	"$BFD" --site kth.model --users 10,20,40 --days 7 --policy easy --seeds 1..3 --format csv \
		--plot-throughput tp.svg --plot-sessions ses.svg >site.csv 2>err
ok $? "site study over seeds: runs and plots"
plots="$plots tp.svg ses.svg"
valid tp.svg && valid ses.svg
ok $? "site plots: valid SVG"
has tp.svg "site model of $KB" && has tp.svg "throughput (jobs per hour)" && has tp.svg ", easy" &&
	has ses.svg "session length (jobs per session)" && has ses.svg "mean of 3 seeds, 95% CI"
ok $? "site plots: the titles name the model's trace, the figure, the policy, the seeds ($(title tp.svg))"
[ "$(xticks tp.svg)" = "10 20 40" ] && [ "$(xticks ses.svg)" = "10 20 40" ]
ok $? "site plots: the x ticks are the users swept ($(xticks tp.svg))"
want=$(spread site.csv users throughput_jobs_per_hour); got=$(count tp.svg errbar)
[ "$got" -eq "$want" ] && [ "$got" -ge 1 ]
ok $? "site throughput: an error bar on each mean whose seeds differ ($got, want $want)"
want=$(spread site.csv users session_length_jobs); got=$(count ses.svg errbar)
[ "$got" -eq "$want" ] && [ "$got" -ge 1 ]
ok $? "site sessions: an error bar on each mean whose seeds differ ($got, want $want)"
"$BFD" --site kth.model --users 10,20 --days 7 --plot-throughput one.svg >/dev/null 2>err &&
	[ "$(count one.svg errbar)" -eq 0 ] && ! has one.svg "seeds"
ok $? "site study with one seed: no error bar, no claim of seeds"

# ---- text is escaped -------------------------------------------------------------------------------
cp "$K" 'a&b<c>.swf.gz'
"$BFD" --replay 'a&b<c>.swf.gz' $SMALL --plot esc.svg >/dev/null 2>err && valid esc.svg &&
	grep -q 'a&amp;b&lt;c&gt;.swf.gz' esc.svg
ok $? "a trace named a&b<c>: the title escaped, the SVG valid"

# ---- not SVG: refused --------------------------------------------------------------------------------
for opt in --plot --plot-throughput --plot-sessions; do
	case $opt in
	--plot) "$BFD" --replay "$K" $SMALL --plot x.png >/dev/null 2>err ;;
	*) "$BFD" --site kth.model --users 5 --days 1 $opt x.png >/dev/null 2>err ;;
	esac
	rc=$?
	[ $rc -eq 2 ] && [ ! -e x.png ] && [ "$(wc -l <err)" -eq 1 ] && grep -qF -- "$opt x.png: the plot is SVG" err
	ok $? "$opt x.png: refused in one line, nothing written (rc $rc: $(head -1 err))"
done
"$BFD" --replay "$K" $SMALL --plot UPPER.SVG >/dev/null 2>err && valid UPPER.SVG
ok $? "--plot FILE.SVG (any case) is an SVG name"

# ---- rendered as a reader would see them ------------------------------------------------------------
for f in $plots; do
	if ! command -v rsvg-convert >/dev/null 2>&1; then
		skip_check "$f: renders to PNG" "rsvg-convert is not installed (Debian's librsvg2-bin; mk/deps.sh --tests)"
		continue
	fi
	rsvg-convert -o "${f%.svg}.png" "$f" 2>err && [ -s "${f%.svg}.png" ] &&
		[ "$(head -c 8 "${f%.svg}.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]
	ok $? "$f: renders to PNG (rsvg-convert), a non-empty file with the PNG signature"
done

done_testing
