# The what-if cookbook (man/backfilld-whatif.7, COOKBOOK) works: every
# example block is taken from the page as written and run from a copy of
# the project's top directory; each must succeed, and every SVG and CSV it
# writes must be well formed. The block that submits a sweep with bsub runs
# against a live daemon, and the block after it joins the rows its jobs wrote.
. "$BF_TOP/tests/lib.sh"

XMLCHECK="$BF_BUILD/tests/bf_xmlcheck"
PAGE="$BF_TOP/man/backfilld-whatif.7"
# traces/: the shipped ones, and those of ../shared (the site-level study
# needs five of the archive's) where there.
mkdir -p "$TMP/top/traces"
for t in "${BF_TRACES:-/nonexistent}"/*.swf.gz "${BF_OWN_TRACES:-$BF_TOP/traces}"/*.swf.gz; do
	[ -f "$t" ] && ln -sf "$t" "$TMP/top/traces/"
done
# The programs as the page names them.
mkdir -p "$TMP/bin" && for p in backfilld bsub bq; do ln -s "$BF_BUILD/$p" "$TMP/bin/$p"; done
PATH="$TMP/bin:$PATH"; export PATH

# The page's example blocks, roff escapes undone, one file each; a marker
# comment before a block is kept in the file's name.
awk -v dir="$TMP" '
	/^\.SH COOKBOOK/ { on = 1; next }
	/^\.SH / { on = 0 }
	on && /^\.\\" cookbook: needs the daemon/ { mark = "daemon" }
	on && /^\.\\" cookbook: after the jobs/ { mark = "after" }
	on && /^\.\\" cookbook: shrink/ { mark = "shrink" }
	on && /^\.EX/ { k++; f = sprintf("%s/block%02d%s.sh", dir, k, mark ? "-" mark : ""); mark = ""; inex = 1; next }
	on && /^\.EE/ { inex = 0; close(f); next }
	inex { gsub(/\\-/, "-"); gsub(/\\e/, "\\"); gsub(/\\\(aq/, "\047"); print > f }
' "$PAGE"
blocks=$(ls "$TMP"/block*.sh 2>/dev/null | wc -l)
[ "$blocks" -ge 7 ]
ok $? "the cookbook has its examples ($blocks blocks)"

cd "$TMP/top" || exit 1
for b in "$TMP"/block*.sh; do
	name=$(basename "$b" .sh)
	case $name in
	*-daemon)
		start_daemon --nodes 2 || { ok 1 "$name: a daemon for the example"; continue; }
		sh -e "$b" >"$TMP/$name.out" 2>&1
		ok $? "$name: the sweep is submitted with bsub ($(grep -c . "$TMP/$name.out") jobs)"
		all=0
		for id in $(seq 1 "$(grep -c . "$TMP/$name.out")"); do
			wait_state "$id" "done" 120 || all=1
		done
		ok $all "$name: every cell ran to its end as a batch job"
		stop_daemon
		;;
	*-shrink)
		# The example as written takes minutes: the same commands on
		# fewer users, days and seeds. Its traces may not be here.
		missing=$(grep -o 'traces/[A-Za-z0-9.-]*\.swf\.gz' "$b" | while read -r t; do
			[ -e "$t" ] || echo "$t"; done | head -1)
		if [ -n "$missing" ]; then
			skip_check "$name: the site-level study runs" "needs $missing (../shared/traces)"
			continue
		fi
		sed 's/--days 182/--days 14/; s/--seeds 1\.\.10/--seeds 1..2/; s/--users 50,100,150,200,250/--users 20,40/' \
			"$b" >"$b.small"
		sh -e "$b.small" >"$TMP/$name.out" 2>"$TMP/$name.err"
		rc=$?
		ok $rc "$name: the site-level study runs (14 days, 20 and 40 users, 2 seeds)"
		[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/$name.err" | head -5
		grep -q "^creasy 6000  *40 .*%" "$TMP/$name.out"
		ok $? "$name: its table has creasy 6000 at 40 users with its gain"
		;;
	*)
		first=$(head -1 "$b")
		sh -e "$b" >"$TMP/$name.out" 2>"$TMP/$name.err"
		rc=$?
		ok $rc "$name: ${first%% \\*}... runs"
		[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/$name.err" | head -5
		;;
	esac
done

# What the examples wrote.
for f in *.svg; do
	"$XMLCHECK" "$f"
	ok $? "$f is a well-formed SVG"
done
svgs=4
[ -f site-throughput.svg ] && svgs=6
[ "$(ls *.svg | wc -l)" -eq $svgs ]
ok $? "$svgs plots written (comparison, accuracy, size, load; the site study's two)"
[ "$(wc -l <accuracy.csv)" -eq 141 ] && head -1 accuracy.csv | grep -q '^cell,trace,policy,estimates,seed,'
ok $? "accuracy.csv: a header and 140 rows"
[ "$(wc -l <sweep.csv)" -eq 9 ] && [ "$(grep -c '^cell,' sweep.csv)" -eq 1 ] &&
	[ "$(cut -d, -f1 sweep.csv | tail -n +2 | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 " ]
ok $? "the rows written by the batch jobs join into the whole sweep (cells 0 to 7)"
grep -q "^A = easy/trace" "$TMP"/block03.out && grep -q "^B = easy/x2" "$TMP"/block03.out
ok $? "doubling estimates: both sides named in the comparison"
done_testing
