#!/bin/sh
# Benchmarks: replay speed on real traces (RICC-2010 too, its conservative
# schedule checked against the recorded one) and on a synthetic 1M-job
# trace, the core's per-event cost against the queue length (bench_queue)
# and conservative events with 10,000 and 100,000 queued (bench_depth),
# then the live daemon over its socket (bench_daemon: durable submissions
# per second, bq latency and the pass with 10,000 queued, the longest loop
# stall, memory and restart with many jobs), and jobs on a cluster of 16
# test nodes over ssh (bench/cluster.sh: a 16-node job's spread, one-node
# starts a second), and a 10,000-element job array (bench/arrays.sh: its
# submission, bq of it). Prints figures only: timing
# never fails the run. The exit status is non-zero only if a replay, a
# schedule check, bench_queue, bench_depth or bench_daemon fails (or cannot
# run at all).
#
# Usage: sh bench/run.sh [BUILD]      (make bench runs it with BUILD=build)
# Traces: ../shared/traces beside the checkout (BF_TRACES overrides); they are
# read in place. The synthetic trace goes to a temporary directory that is
# removed at the end; so do bench_daemon's daemons (socket, database, spool),
# each stopped by its pid. bench_daemon gets BENCH_DAEMON_TIMEOUT seconds
# (default 420) and reads BENCH_DAEMON_BIG, BENCH_DAEMON_BUDGET, BENCH_PERF
# (see bench/bench_daemon.c).
set -u
LC_ALL=C
export LC_ALL

build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
case $build in
/*) bdir=$build ;;
*) bdir=$top/$build ;;
esac
bin=$bdir/backfilld
bq=$bdir/bench/bench_queue
bd=$bdir/bench/bench_daemon
bdepth=$bdir/bench/bench_depth
traces=${BF_TRACES:-$top/../shared/traces}
policies="fcfs easy conservative"
status=0

for f in "$bin" "$bq" "$bd" "$bdepth"; do
	if [ ! -x "$f" ]; then
		echo "bench: $f is missing: build first (make bench does)" >&2
		exit 1
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/backfilld-bench.XXXXXX") || {
	echo "bench: cannot make a temporary directory" >&2
	exit 1
}
trap 'rm -rf "$tmp"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- clocks and meters -------------------------------------------------------

# Nanoseconds from GNU date if it has %N; otherwise whole seconds.
if ns=$(date +%s%N 2>/dev/null) && case $ns in '' | *[!0-9]*) false ;; esac; then
	have_ns=1
else
	have_ns=0
fi
now_ns() {
	if [ "$have_ns" = 1 ]; then
		date +%s%N
	else
		echo "$(date +%s)000000000"
	fi
}
# Seconds between two now_ns readings, 3 decimals.
secs() {
	awk -v d="$(($2 - $1))" 'BEGIN { printf "%.3f", d / 1e9 }'
}

# GNU time for the peak RSS (and the process time when date has no %N).
timebin=
if [ -x /usr/bin/time ] &&
	/usr/bin/time -f '%e %M' -o "$tmp/probe" true 2>/dev/null &&
	tail -n 1 "$tmp/probe" | grep -Eq '^[0-9.]+ [0-9]+$'; then
	timebin=/usr/bin/time
fi

# A replay that hangs (a core bug) must not hang the bench: each replay gets
# BENCH_TIMEOUT seconds (default 120, 6x the 1M-job target) if GNU timeout
# exists, then counts as failed.
limit=${BENCH_TIMEOUT:-120}
tmo=
if command -v timeout >/dev/null 2>&1 && timeout 5 true 2>/dev/null; then
	tmo="timeout $limit"
fi

# ---- one replay, one table row ----------------------------------------------

# The value of a top-level key in the replay's JSON report.
jget() {
	awk -v k="\"$1\":" '$1 == k { v = $2; sub(/,$/, "", v); print v; exit }' "$2"
}

row_fmt='%-22s %-13s %8s %9s %8s %9s %10s %9s  %s\n'
header() {
	# shellcheck disable=SC2059
	printf "$row_fmt" trace policy jobs events wall_s process_s jobs/s "peak RSS" target
	# shellcheck disable=SC2059
	printf "$row_fmt" "" "" simulated "" "(replay)" "(whole)" "" "" ""
}

# replay NAME FILE POLICY TARGET [JOBS_OUT]: run it once and print one row;
# with JOBS_OUT, the schedule goes there too (--jobs-out).
replay() {
	name=$1 file=$2 pol=$3 target=$4 out=${5:-}
	json=$tmp/report.json rus=$tmp/rusage err=$tmp/stderr
	rm -f "$rus"
	set -- --replay "$file" --policy "$pol" --format json
	[ -z "$out" ] || set -- "$@" --jobs-out "$out"
	t0=$(now_ns)
	if [ -n "$timebin" ]; then
		# shellcheck disable=SC2086
		"$timebin" -f '%e %M' -o "$rus" $tmo "$bin" "$@" >"$json" 2>"$err"
	else
		# shellcheck disable=SC2086
		$tmo "$bin" "$@" >"$json" 2>"$err"
	fi
	rc=$?
	t1=$(now_ns)
	if [ "$rc" -ne 0 ]; then
		status=1
		if [ -n "$tmo" ] && [ "$rc" -eq 124 ]; then
			printf '%-22s %-13s FAILED: no result after %s s (killed: a hang?)\n' \
				"$name" "$pol" "$limit"
		else
			printf '%-22s %-13s FAILED: exit status %s\n' "$name" "$pol" "$rc"
		fi
		sed -n '1,5s/^/    /p' "$err"
		return
	fi
	wall=$(jget wall_s "$json")
	jobs=$(jget jobs_simulated "$json")
	events=$(jget events "$json")
	rss=n/a
	if [ "$have_ns" = 1 ]; then
		proc=$(secs "$t0" "$t1")
	else
		proc=n/a
	fi
	if [ -n "$timebin" ] && [ -s "$rus" ]; then
		last=$(tail -n 1 "$rus")	# "%e %M": elapsed s, peak RSS KiB
		[ "$have_ns" = 1 ] || proc=${last% *}
		rss=$(awk -v k="${last#* }" 'BEGIN { printf "%.1f MiB", k / 1024 }')
	fi
	# A report without the numbers (null, a renamed key) shows n/a.
	jps=$(awk -v j="$jobs" -v w="$wall" 'BEGIN {
		if (j ~ /^[0-9]+$/ && w ~ /^[0-9.]+$/ && w > 0) printf "%.0f", j / w; else print "n/a" }')
	wall=$(awk -v w="$wall" 'BEGIN { if (w ~ /^[0-9.]+$/) printf "%.3f", w; else print "n/a" }')
	[ -n "$jobs" ] || jobs=n/a
	[ -n "$events" ] || events=n/a
	# shellcheck disable=SC2059
	printf "$row_fmt" "$name" "$pol" "$jobs" "$events" "$wall" "$proc" "$jps" "$rss" "$target"
}

# replay_all NAME FILE TARGET_FCFS TARGET_EASY TARGET_CONS
replay_all() {
	name=$1 file=$2
	if [ ! -r "$file" ]; then
		status=1
		printf '%-22s %-13s FAILED: trace not found: %s\n' "$name" "(all)" "$file"
		return
	fi
	for pol in $policies; do
		case $pol in
		fcfs) t=$3 ;;
		easy) t=$4 ;;
		*) t=$5 ;;
		esac
		replay "$name" "$file" "$pol" "$t"
	done
}

# ---- the synthetic trace -----------------------------------------------------

copies=13
ctc=$traces/CTC-SP2-1996-3.1-cln.swf.gz
synth=$tmp/ctc-x$copies.swf

# CTC-SP2 concatenated $copies times: copy c's submit times are shifted by
# copy c-1's last submit + 1 day, jobs renumbered 1..N (fields 17-18, the
# preceding job and think time, are -1 throughout CTC), CTC's header kept.
make_synth() {
	zcat "$ctc" | awk -v copies="$copies" '
	BEGIN {
		printf "; backfilld bench: synthetic trace, CTC-SP2-1996-3.1-cln concatenated %d times;\n", copies
		print "; each copy shifted by the previous copy'"'"'s last submit + 1 day, jobs renumbered"
	}
	/^[ \t]*;/ { print; next }
	NF == 0 { next }
	{
		n++
		line[n] = $0
		if ($2 + 0 > last)
			last = $2 + 0
	}
	END {
		id = 0
		off = 0
		for (c = 0; c < copies; c++) {
			for (i = 1; i <= n; i++) {
				$0 = line[i]
				$1 = ++id
				$2 = sprintf("%.0f", $2 + off)
				print
			}
			off += last + 86400
		}
	}' >"$synth"
}

# ---- run ----------------------------------------------------------------------

start=$(now_ns)
commit=$(cd "$top" && git rev-parse --short HEAD 2>/dev/null) || commit=unknown
echo "backfilld benchmarks ($(date '+%Y-%m-%d %H:%M'), commit $commit," \
	"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs, build $build)"
echo "Each replay runs once. wall_s: the replay's own time (its JSON \"wall_s\": reading"
echo "the trace, simulating, metrics); process_s: the whole backfilld process; jobs/s:"
echo "jobs simulated / wall_s; peak RSS: /usr/bin/time %M."
[ -n "$timebin" ] || echo "(/usr/bin/time is not usable here: peak RSS shown as n/a)"
if [ "$have_ns" != 1 ]; then
	if [ -n "$timebin" ]; then
		echo "(date has no %N: process times from /usr/bin/time, in 10 ms steps)"
	else
		echo "(date has no %N and /usr/bin/time is not usable: process times n/a)"
	fi
fi
echo "Targets are stated for reference only; nothing fails on time${tmo:+ (a run that gives
no result within $limit s is killed and counted as failed: a hang)}."
echo
echo "== Real traces =="
header
replay_all CTC-SP2-1996-3.1-cln "$ctc" "" "< 0.3 s" "< 1 s"
replay_all SDSC-SP2-1998-4.2-cln "$traces/SDSC-SP2-1998-4.2-cln.swf.gz" "" "" ""

# RICC-2010: 447,794 jobs on 8,192 processors, up to 23,000 waiting under
# conservative. Its schedule is checked against the digest recorded before
# the speed work (tests/replay/schedules.list): faster, not different.
ricc=$traces/RICC-2010-2.swf.gz
if [ ! -r "$ricc" ]; then
	status=1
	printf '%-22s %-13s FAILED: trace not found: %s\n' RICC-2010-2 "(all)" "$ricc"
else
	replay RICC-2010-2 "$ricc" easy "as before"
	# Minutes today, not a hang: its own limit (BENCH_RICC_TIMEOUT, 900 s).
	saved=$tmo
	[ -z "$tmo" ] || tmo="timeout ${BENCH_RICC_TIMEOUT:-900}"
	replay RICC-2010-2 "$ricc" conservative "< 20 s, 1 GiB" "$tmp/ricc.swf"
	tmo=$saved
	want=$(sed -n 's/^# bench: RICC-2010-2 --policy conservative = //p' \
		"$top/tests/replay/schedules.list")
	if [ -s "$tmp/ricc.swf" ] && [ -n "$want" ]; then
		got=$(sha256sum <"$tmp/ricc.swf" | cut -c1-64)
		if [ "$got" = "$want" ]; then
			echo "    RICC-2010-2 conservative: the same schedule as recorded (sha256 ${want%"${want#????????????}"}...)"
		else
			status=1
			echo "    FAILED: RICC-2010-2 conservative: the schedule differs from the recorded one"
		fi
	fi
	rm -f "$tmp/ricc.swf"
fi

echo
echo "== What-if: a sweep on KTH-SP2 (traces/, shipped) =="
kth=$top/traces/KTH-SP2-1996-2.1-cln.swf.gz
if [ ! -r "$kth" ]; then
	status=1
	echo "FAILED: trace not found: $kth"
else
	cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')
	t0=$(now_ns)
	# shellcheck disable=SC2086
	$tmo "$bin" --replay "$kth" --policy easy,conservative \
		--estimates f=1,f=2,f=4,f=11,f=31,f=101,f=301 --seeds 1..10 --format csv \
		>"$tmp/sweep.csv" 2>"$tmp/stderr"
	rc=$?
	t1=$(now_ns)
	rows=$(($(wc -l <"$tmp/sweep.csv") - 1))
	if [ "$rc" -ne 0 ] || [ "$rows" -ne 140 ]; then
		status=1
		echo "FAILED: the sweep exited with status $rc and $rows rows"
		sed -n '1,5s/^/    /p' "$tmp/stderr"
	else
		cpu=$(awk -F, 'NR > 1 { s += $NF } END { printf "%.2f", s }' "$tmp/sweep.csv")
		echo "140 replays (easy, conservative x f=1..301 x seeds 1..10) on $cpus CPUs:" \
			"$(secs "$t0" "$t1") s (target < 20 s); the replays' own times add up to $cpu s"
	fi
	for pol in easy conservative; do
		for order in "" --per-event; do
			# shellcheck disable=SC2086
			"$bin" --replay "$ctc" --policy "$pol" $order --format json >"$tmp/r.json" 2>/dev/null
			echo "CTC-SP2 $pol ${order:-(one pass per instant)}: wall_s $(jget wall_s "$tmp/r.json")," \
				"bounded slowdown $(jget bounded_slowdown_avg "$tmp/r.json")," \
				"wait $(jget wait_avg_s "$tmp/r.json") s"
		done
	done
fi

echo
echo "== Synthetic: CTC-SP2 x $copies =="
if [ ! -r "$ctc" ]; then
	status=1
	echo "FAILED: trace not found: $ctc"
else
	g0=$(now_ns)
	make_synth
	# zcat's status is lost in the pipe: count what came out instead.
	njobs=$(grep -vc '^[[:space:]]*;' "$synth")
	if [ "$njobs" -ge 1000000 ]; then
		sz=$(wc -c <"$synth" | awk '{ printf "%.0f MB", $1 / 1e6 }')
		echo "generated $njobs jobs ($sz plain SWF, in a temporary directory)" \
			"in $(secs "$g0" "$(now_ns)") s"
		header
		replay_all "CTC-SP2 x $copies" "$synth" "< 20 s" "< 20 s" "< 20 s"
	else
		status=1
		echo "FAILED: the synthetic trace has $njobs jobs, not at least 1,000,000"
	fi
	rm -f "$synth"
fi

echo
echo "== Core: cost of one event vs queue length ($build/bench/bench_queue) =="
# shellcheck disable=SC2086
$tmo "$bq"
rc=$?
if [ "$rc" -ne 0 ]; then
	status=1
	if [ -n "$tmo" ] && [ "$rc" -eq 124 ]; then
		echo "FAILED: bench_queue gave no result after $limit s (killed: a hang?)"
	else
		echo "FAILED: bench_queue exited with status $rc"
	fi
fi

# bench_depth and bench_daemon: BENCH_DAEMON_TIMEOUT seconds each (default 420).
dlimit=${BENCH_DAEMON_TIMEOUT:-420}
dtmo=
[ -z "$tmo" ] || dtmo="timeout $dlimit"
# timed_run NAME PROGRAM ARGS...: run it within that limit; a failure or a
# hang is reported and fails the bench.
timed_run() {
	what=$1
	shift
	# shellcheck disable=SC2086
	$dtmo "$@"
	rc=$?
	[ "$rc" -eq 0 ] && return 0
	status=1
	if [ -n "$dtmo" ] && [ "$rc" -eq 124 ]; then
		echo "FAILED: $what gave no result after $dlimit s (killed: a hang?)"
	else
		echo "FAILED: $what exited with status $rc"
	fi
}
echo
echo "== Core: conservative with 10,000 and 100,000 queued ($build/bench/bench_depth) =="
timed_run bench_depth "$bdepth"

echo
echo "== Daemon: over the socket ($build/bench/bench_daemon) =="
# Its daemons' directories go under $tmp (removed at exit whatever happens);
# on a signal it stops what it started itself.
TMPDIR=$tmp
export TMPDIR
timed_run bench_daemon "$bd" "$bdir"

echo
echo "== Cluster: 16 test nodes over ssh (bench/cluster.sh) =="
# Its cluster (namespaces, one sshd per node) and daemon live in a
# directory of its own and are taken down at its end; it says why if the
# machine cannot build one (not root, no namespaces, no openssh-server).
timed_run bench_cluster sh "$top/bench/cluster.sh" "$bdir"

echo
echo "== Job arrays: a 10,000-element array, submitted and listed (bench/arrays.sh) =="
timed_run bench_arrays sh "$top/bench/arrays.sh" "$bdir"

echo
echo "bench took $(secs "$start" "$(now_ns)") s in all"
[ "$status" -eq 0 ] || echo "bench: something failed (see above)" >&2
exit "$status"
