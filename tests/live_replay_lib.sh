# Live equals replay, shared by tests/daemon/live_replay.sh (jobs on the
# daemon's host) and tests/daemon/cluster_replay.sh (jobs on their nodes,
# over ssh): see live_replay.sh for what is checked and why the times
# hold. Sourced after tests/lib.sh, in $TMP.
#
# live_replay SCALE [DAEMON-ARGS...]: SCALE live seconds per trace second;
# the daemon is started with DAEMON-ARGS too (start_daemon), on 8 nodes
# (--nodes $LR_NODES: a count or a node list, default 8).
live_replay() {
SCALE=$1
shift
TOL=2.5		# trace seconds


# job submit runtime nodes estimate; job 10 runs past its estimate (killed).
cat >trace.swf <<'EOF'
; MaxProcs: 8
1 0 -1 20 4 -1 -1 4 30 -1 1 1 1 -1 -1 -1 -1 -1
2 3 -1 40 4 -1 -1 4 50 -1 1 1 1 -1 -1 -1 -1 -1
3 6 -1 15 6 -1 -1 6 20 -1 1 1 1 -1 -1 -1 -1 -1
4 9 -1 8 2 -1 -1 2 12 -1 1 1 1 -1 -1 -1 -1 -1
5 25 -1 12 2 -1 -1 2 25 -1 1 1 1 -1 -1 -1 -1 -1
6 34 -1 30 8 -1 -1 8 35 -1 1 1 1 -1 -1 -1 -1 -1
11 40 -1 30 2 -1 -1 2 60 -1 1 1 1 -1 -1 -1 -1 -1
7 48 -1 5 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1
9 66 -1 11 4 -1 -1 4 15 -1 1 1 1 -1 -1 -1 -1 -1
8 70 -1 23 3 -1 -1 3 40 -1 1 1 1 -1 -1 -1 -1 -1
10 74 -1 20 5 -1 -1 5 18 -1 1 1 1 -1 -1 -1 -1 -1
EOF
printf '#!/bin/sh\nexec sleep "$1"\n' >job.sh

now_s() { date +%s.%N; }

for p in easy conservative; do
	"$BF_BUILD/backfilld" --replay trace.swf --policy "$p" --jobs-out "replay-$p.swf" >/dev/null
	ok $? "$p: the trace replays"
	# Replay starts, in trace seconds, by trace job number.
	awk '!/^;/ { print $1, $2 + $3 }' "replay-$p.swf" | sort -n >"replay-$p.txt"
	# The premises above, on this replay: submits and ends (at the kill
	# instant for a job past its estimate) 3 apart, 4 of margin otherwise.
	gap=$(awk '!/^;/ { r = $4 < $9 ? $4 : $9; print $2; print $2 + $3 + r }' "replay-$p.swf" |
		sort -n | uniq | awk 'NR > 1 && (m == "" || $1 - p < m) { m = $1 - p } { p = $1 } END { print m }')
	[ "$gap" -ge 3 ]
	ok $? "$p: the replay's submits and ends are at least 3 trace seconds apart (closest $gap)"
	margin=$(awk '!/^;/ && $4 < $9 && (m == "" || $9 - $4 < m) { m = $9 - $4 } END { print m }' "replay-$p.swf")
	[ "$margin" -ge 4 ]
	ok $? "$p: every job that ends by itself ends at least 4 trace seconds before its limit ($margin)"

	rm -f state.db* && rm -rf spool
	start_daemon --nodes "${LR_NODES:-8}" --policy "$p" --kill-grace 0 "$@" || { ok 1 "$p: daemon"; continue; }
	# Submit each job at its scaled time; the daemon numbers them 1.. in
	# submission order, which is the trace's order.
	t0=$(now_s)
	: >map.txt
	njobs=0
	while read -r job sub _ run _ _ _ nodes est _; do
		case $job in ";"*) continue ;; esac
		njobs=$((njobs + 1))
		wait_s=$(awk -v t0="$t0" -v now="$(now_s)" -v s="$sub" -v k="$SCALE" \
			'BEGIN { w = t0 + s * k - now; printf "%.3f", (w > 0 ? w : 0) }')
		sleep "$wait_s"
		"$BSUB" -n "$nodes" -t "$(awk -v e="$est" -v k="$SCALE" 'BEGIN { printf "%.1fs", e * k }')" \
			job.sh "$(awk -v r="$run" -v k="$SCALE" 'BEGIN { printf "%.1f", r * k }')" >/dev/null
		echo "$njobs $job" >>map.txt
	done <trace.swf
	all=0
	for id in $(seq 1 "$njobs"); do
		wait_state "$id" "done\|killed" 30 && continue
		all=1	# (what became of it, for the post-mortem)
		"$BQ" -l "$id" | grep "^\(State\|Reason\|Pending reason\):" | sed "s/^/# job $id: /"
		grep "job $id:" "$TMP/daemon.log" | tail -5 | sed 's/^/#   /'
	done
	ok $all "$p: all $njobs live jobs ran to their end"
	# Live starts and submissions, in trace seconds from the first
	# submission.
	base=$("$BQ" -l 1 --json | tr ',' '\n' | sed -n 's/"submit_us"://p')
	: >live-$p.txt
	while read -r id job; do
		st=$("$BQ" -l "$id" --json | tr ',' '\n' | sed -n 's/"start_us"://p')
		su=$("$BQ" -l "$id" --json | tr ',' '\n' | sed -n 's/"submit_us"://p')
		awk -v j="$job" -v s="$st" -v u="$su" -v b="$base" -v k="$SCALE" \
			'BEGIN { printf "%d %.2f %.2f\n", j, (s - b) / 1e6 / k, (u - b) / 1e6 / k }' \
			>>"live-$p.txt"
	done <map.txt
	sort -n "live-$p.txt" -o "live-$p.txt"
	"$BQ" -l "$(awk '$2 == 10 { print $1 }' map.txt)" | grep -q "^State: *killed"
	ok $? "$p: the job past its estimate was killed, live as in the replay"
	killed=$("$BQ" -d -a --json 2>/dev/null | tr '{' '\n' | grep -c '"state":"killed"')
	[ "$killed" = 1 ]
	ok $? "$p: no other job was killed live ($killed killed)"
	# The same order of starts (ties broken by job number, as both sort).
	lo=$(sort -k2,2n -k1,1n "live-$p.txt" | awk '{ printf "%s ", $1 }')
	ro=$(sort -k2,2n -k1,1n "replay-$p.txt" | awk '{ printf "%s ", $1 }')
	[ "$lo" = "$ro" ]
	ok $? "$p: the same start order live and replayed ($lo)"
	[ "$lo" = "$ro" ] || echo "#   replay order: $ro"
	# A start as the replay's, but never before the daemon had the job: a
	# submission the test's own client made late (a loaded machine) is
	# not the daemon's lateness.
	dev=$(join "live-$p.txt" "replay-$p.txt" | awk '{ e = $4 > $3 ? $4 : $3; d = $2 - e;
		if (d < 0) d = -d; if (d > m) m = d } END { printf "%.2f", m }')
	awk -v d="$dev" -v t="$TOL" 'BEGIN { exit !(d <= t) }'
	ok $? "$p: every start within $TOL trace seconds of the replay's (largest gap $dev)"
	[ "$(awk -v d="$dev" -v t="$TOL" 'BEGIN { print (d <= t) }')" = 1 ] ||
		join "live-$p.txt" "replay-$p.txt" | sed 's/^/#   job live live-submit replay: /'
	stop_daemon
done
# The two policies really differ on this trace (job 11 backfills under EASY).
! cmp -s replay-easy.txt replay-conservative.txt
ok $? "the trace tells the policies apart"
}
