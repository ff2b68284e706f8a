# Two jobs killed at their limits at one instant (the CTC-SP2 instant of
# the fid-event issue: jobs 4275 and 4276 at 1,926,387 s), small: the
# schedule per instant and per event (--per-event, pyss's order) is the
# one worked out by hand, legal EASY, and --check holds after every event.
# Then the CTC instant itself, when ../shared/traces has the trace: under
# --per-event, jobs 4515, 4531 and 4548 start when pyss starts them.
. "$BF_TOP/tests/lib.sh"

# swf FILE NODES, then "job submit run nodes estimate" lines on stdin.
swf() {
	{
		printf '; MaxProcs: %s\n' "$2"
		awk '{ printf "%d %d -1 %d %d -1 -1 -1 %d -1 1 1 -1 -1 -1 -1 -1 -1\n", $1, $2, $3, $4, $5 }'
	} >"$1"
}

# starts FILE: "job:start" for every job, in input order.
starts() {
	awk '!/^;/ { printf "%s%d:%d", sep, $1, $2 + $3; sep = " " } END { print "" }' "$1"
}

# Jobs 1 and 2 (16 nodes each) run past their estimate of 100 s and are
# killed at 100; job 3 (5 nodes) runs to 1000. 40 nodes, 3 free at 0.
#
# Wide head: job 4 (40 nodes) waits for 1000, its shadow, with no extra
# nodes. Behind it job 5 (26 nodes) and jobs 6 and 7 (16 nodes) would end
# by the shadow if they started at 100. With both ends' nodes back before
# the pass (per instant, and per event as pyss has it) 35 are free: job 5
# starts, 6 and 7 cannot (9 free, and at 600 they would end after the
# shadow); they start after job 4. (With a pass between the two ends, the
# order before, 6 and 7 started at 100 and 5 waited: legal too.)
swf "$TMP/wide.swf" 40 <<'EOF'
1 0 150 16 100
2 0 150 16 100
3 0 1000 5 1000
4 1 500 40 500
5 2 500 26 500
6 3 500 16 500
7 4 500 16 500
EOF
want_wide="1:0 2:0 3:0 4:1000 5:100 6:1500 7:1500"

# Head at the instant: job 4 (26 nodes) fits once both jobs are gone (its
# shadow is 100, 9 nodes spare); job 5 (16 nodes, estimate 300) would end
# after the shadow and needs more than the 9 spare: it must not start at
# 100 (after the first end 19 are free, 16 of them would do, and the head
# would lose its nodes). It starts when job 4 ends.
swf "$TMP/head.swf" 40 <<'EOF'
1 0 150 16 100
2 0 150 16 100
3 0 1000 5 1000
4 1 500 26 500
5 2 300 16 300
EOF
want_head="1:0 2:0 3:0 4:100 5:600"

for t in wide head; do
	eval want=\$want_$t
	for o in "" --per-event; do
		name="$t, easy ${o:-per instant}"
		# shellcheck disable=SC2086
		"$BFD" --replay "$TMP/$t.swf" --policy easy $o --check --jobs-out "$TMP/o.swf" \
			>"$TMP/r.txt" 2>"$TMP/err"
		ok $? "$name: --check holds after every event"
		[ -s "$TMP/err" ] && sed 's/^/# /' "$TMP/err"
		grep -q '^killed        2 ' "$TMP/r.txt"
		ok $? "$name: jobs 1 and 2 are killed at their limit"
		got=$(starts "$TMP/o.swf")
		[ "$got" = "$want" ]
		ok $? "$name: starts $want (got $got)"
	done
	for p in fcfs conservative; do
		"$BFD" --replay "$TMP/$t.swf" --policy "$p" --per-event --check >/dev/null 2>"$TMP/err"
		ok $? "$t, $p per event: --check holds after every event"
		[ -s "$TMP/err" ] && sed 's/^/# /' "$TMP/err"
	done
done

# The CTC-SP2 instant: head 4348 (128 nodes, shadow 1,942,140 s); with
# both killed jobs' nodes back first, 4515 (26 nodes) starts at once and
# ends by the shadow; 4531 and 4548 (16 nodes) later, as pyss starts them.
t=CTC-SP2-1996-3.1-cln
f=$(trace "$t.swf.gz")
if ! have_trace "$t.swf.gz"; then
	skip_check "$t: the instant of jobs 4275 and 4276 per event" "$f is not here (the large traces are in ../shared/traces beside the checkout)"
else
	"$BFD" --replay "$f" --policy easy --per-event --jobs-out "$TMP/ctc.swf" >/dev/null 2>"$TMP/err"
	ok $? "$t easy per event: replays"
	got=$(awk '!/^;/ && ($1 == 4275 || $1 == 4276 || $1 == 4348 || $1 == 4515 || $1 == 4531 ||
	            $1 == 4548) { printf "%s%d:%d", sep, $1, $2 + $3; sep = " " } END { print "" }' \
	      "$TMP/ctc.swf")
	want="4275:1879587 4276:1879587 4348:1940436 4515:1926387 4531:1926389 4548:1927830"
	[ "$got" = "$want" ]
	ok $? "$t easy per event: 4515 starts at 1926387, 4531 and 4548 after (got $got)"
fi
done_testing
