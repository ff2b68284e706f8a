# Shared by the shell tests: TAP output, temp dir, the binary, traces.
# Sourced; expects BF_BUILD, BF_TOP and BF_TRACES from tests/run.sh.
set -u
n=0
BFD="$BF_BUILD/backfilld"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() {	# ok CONDITION-EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

# json_num FILE KEY: a top-level number from the replay's JSON report.
json_num() {
	sed -n "s/^ *\"$2\": *\([-0-9.e]*\),*\$/\1/p" "$1" | head -1
}

# trace NAME: the path of a real trace: the project's own copy (traces/)
# if it ships one, else ../shared/traces'. have_trace NAME: it is there.
trace() {
	if [ -f "${BF_OWN_TRACES:-$BF_TOP/traces}/$1" ]; then
		echo "${BF_OWN_TRACES:-$BF_TOP/traces}/$1"
	else
		echo "$BF_TRACES/$1"
	fi
}
have_trace() { [ -f "$(trace "$1")" ]; }
# skip DESCRIPTION REASON: a check that cannot run here, counted as skipped.
skip_check() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
done_testing() { echo "1..$n"; }

# ---- the live daemon, for tests/daemon/*.sh ----
BSUB="$BF_BUILD/bsub"; BQ="$BF_BUILD/bq"; BKILL="$BF_BUILD/bkill"
export BACKFILLD_SOCKET="$TMP/s.sock"
DPID=

# start_daemon ARGS...: in the foreground on the test's socket, database and
# spool; waits (at most 10 s) until it answers. $START_WRAP, if set, is a
# command (words without blanks in them) that runs the daemon: it must
# exec it, so that $DPID is the daemon's pid.
start_daemon() {
	# shellcheck disable=SC2086
	${START_WRAP:-} "$BF_BUILD/backfilld" --foreground --socket "$TMP/s.sock" --db "$TMP/state.db" \
		--spool "$TMP/spool" "$@" >>"$TMP/daemon.log" 2>&1 &
	DPID=$!
	i=0
	while [ $i -lt 100 ]; do
		"$BQ" >/dev/null 2>&1 && return 0
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	echo "# the daemon did not start:"; sed 's/^/#   /' "$TMP/daemon.log"
	return 1
}

# stop_daemon [SIGNAL]: stop the daemon we started, by its pid.
stop_daemon() {
	[ -n "$DPID" ] || return 0
	kill "-${1:-TERM}" "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
}

# submit_many EACH BSUB-ARGS...: four clients at once, each submitting EACH
# jobs with bsub BSUB-ARGS; the status says whether every one was taken.
submit_many() {
	each=$1
	shift
	pids=
	for p in 1 2 3 4; do
		(i=0; while [ $i -lt "$each" ]; do
			"$BSUB" "$@" >/dev/null || exit 1
			i=$((i + 1))
		done) &
		pids="$pids $!"
	done
	rc=0
	for p in $pids; do wait "$p" || rc=1; done	# (not the daemon, also a child)
	return $rc
}

# The final states (bq(1)), for wait_state: a job in one of them is over.
ENDED='done\|exit\|killed\|cancelled\|failed'
# wait_state ID STATE [SECONDS]: until bq -l shows the job in that state.
wait_state() {
	i=0
	while [ $i -lt $((${3:-20} * 10)) ]; do
		"$BQ" -l "$1" 2>/dev/null | grep -q "^State: *\($2\)" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# job_state ID: the job's state as bq -l shows it (queued, running, ...),
# empty if it is unknown.
job_state() { "$BQ" -l "$1" 2>/dev/null | sed -n 's/^State: *\([a-z]*\).*/\1/p'; }
# rss_kb: the daemon's resident memory, in KiB.
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status" 2>/dev/null; }
# rss_under LIMIT-KB RSS-KB DESCRIPTION: a check that the daemon's RSS is
# under the limit; skipped in the quick run (make asan), where
# AddressSanitizer keeps freed memory in its quarantine (up to 256 MB) and
# the RSS measures the sanitizer, not the daemon.
rss_under() {
	if [ -n "${BACKFILLD_TEST_QUICK:-}" ]; then
		skip_check "$3" "quick run (sanitizers): RSS counts AddressSanitizer's quarantine"
	else
		[ "$2" -lt "$1" ]
		ok $? "$3"
	fi
}

# wait_log PATTERN [SECONDS]: until daemon.log has a line that matches
# (10 s at most by default); the status says whether it came.
wait_log() {
	i=0
	while [ $i -lt $((${2:-10} * 10)) ] && ! grep -q "$1" "$TMP/daemon.log"; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "$1" "$TMP/daemon.log"
}

# Every guarantee that moves later must be announced (conservative).
# guarantees: "id start_us" (or "id none") of each queued job.
guarantees() {
	"$BQ" -a --json | tr '\n' ' ' | grep -o '{[^{}]*}' |
		sed -n 's/.*"id":\([0-9]*\),.*"state":"queued",.*"start_kind":\("guaranteed"\|null\|"predicted"\).*/\1 \2/p' |
		while read -r id kind; do
			t=$("$BQ" -l "$id" --json | sed -n 's/.*"start_us":\([0-9]*\).*"start_kind":"guaranteed".*/\1/p')
			echo "$id ${t:-none}"
		done
}
# silent BEFORE AFTER LOG-BEFORE: the jobs that moved later from BEFORE to
# AFTER (guarantees' output) without a "guarantee broken" line in
# daemon.log since LOG-BEFORE (a copy of it) was taken, or without the
# listing's mark (queued!) or bq -l's "Guarantee broken:" line.
silent() {
	while read -r id was; do
		now=$(awk -v j="$id" '$1 == j { print $2 }' "$2")
		[ -n "$now" ] || continue		# started or gone
		later=0
		if [ "$now" = none ] && [ "$was" != none ]; then later=1; fi
		if [ "$now" != none ] && [ "$was" != none ] && [ "$now" -gt "$was" ]; then later=1; fi
		[ $later -eq 0 ] && continue
		before=$(grep -c "job $id: guarantee broken" "$3" || true)
		after=$(grep -c "job $id: guarantee broken" "$TMP/daemon.log" || true)
		[ "$after" -gt "$before" ] || echo "job $id: $was -> $now, not announced"
		"$BQ" -l "$id" | grep -q "^Guarantee broken: " ||
			echo "job $id: $was -> $now, not in bq -l"
		"$BQ" -a | grep -q "^ *$id .*queued! " ||
			echo "job $id: $was -> $now, not marked in the listing"
	done <"$1"
}

# moved_later BEFORE AFTER: how many jobs of BEFORE have a later guarantee
# (or none) in AFTER.
moved_later() {
	awk 'NR==FNR { a[$1] = $2; next } ($1 in a) && a[$1] != "none" &&
		($2 == "none" || $2 + 0 > a[$1] + 0)' "$1" "$2" | wc -l
}

# The jobs a test left running belong to its daemon's supervisors: cancel
# them all before the daemon stops, then stop it.
cleanup_daemon() {
	[ -z "${STRACE_PID:-}" ] || strace_off
	if [ -n "$DPID" ]; then
		cancel_all
		stop_daemon
	fi
	# BF_KEEP_TMP=1 keeps the test's directory (daemon.log) for a post-mortem.
	if [ -n "${BF_KEEP_TMP:-}" ]; then echo "# kept $TMP" >&2; else rm -rf "$TMP"; fi
}
# wait_file F [SECONDS]: until F exists and is not empty (10 s at most).
wait_file() {
	i=0
	while [ $i -lt $((${2:-10} * 10)) ] && [ ! -s "$1" ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}
# strace_on PID FILE SYSCALLS: strace follows every thread of PID, and
# every child PID forks from then on, into FILE (-f -qq -e
# trace=SYSCALLS), and is attached to every thread when this returns 0.
# Else 1, with the reason in $STRACE_SKIP (not installed, or not
# permitted to attach here). strace_off stops it.
STRACE_PID=
strace_on() {
	STRACE_SKIP="strace is not installed (mk/deps.sh --tests installs it)"
	command -v strace >/dev/null || return 1
	strace -f -qq -p "$1" -e trace="$3" -o "$2" 2>"$2.err" &
	STRACE_PID=$!
	_t=0
	while [ $_t -lt 100 ] && [ -d "/proc/$1" ]; do
		# (grep says 1 when no thread is untraced; 2 when PID went.)
		grep -q '^TracerPid:[[:space:]]*0$' /proc/"$1"/task/*/status 2>/dev/null
		[ $? -eq 1 ] && return 0
		if ! kill -0 "$STRACE_PID" 2>/dev/null; then
			STRACE_SKIP="strace cannot attach here: $(head -1 "$2.err")"
			wait "$STRACE_PID" 2>/dev/null
			STRACE_PID=
			return 1
		fi
		sleep 0.1
		_t=$((_t + 1))
	done
	STRACE_SKIP="strace did not attach within 10 s, or process $1 ended: $(head -1 "$2.err")"
	strace_off
	return 1
}
strace_off() {
	[ -n "$STRACE_PID" ] && kill "$STRACE_PID" 2>/dev/null && wait "$STRACE_PID" 2>/dev/null
	STRACE_PID=
}
# big_env CMD...: CMD with 24 more environment entries of 4000 bytes each
# (96 KB: a job that costs the daemon memory and disk).
big_env() {
	_b=$(head -c 4000 /dev/zero | tr '\0' x)
	env E1=$_b E2=$_b E3=$_b E4=$_b E5=$_b E6=$_b E7=$_b E8=$_b E9=$_b E10=$_b E11=$_b \
	    E12=$_b E13=$_b E14=$_b E15=$_b E16=$_b E17=$_b E18=$_b E19=$_b E20=$_b E21=$_b \
	    E22=$_b E23=$_b E24=$_b "$@"
}
# cancel_all: every job the daemon lists, until each has ended (running
# jobs outlive a daemon that stops: a test stops its own first).
cancel_all() {
	ids=$("$BQ" -a --json 2>/dev/null | tr ',' '\n' | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
	# shellcheck disable=SC2086
	[ -n "$ids" ] && "$BKILL" $ids >/dev/null 2>&1
	for id in $ids; do wait_state "$id" "$ENDED" 10; done
}
trap cleanup_daemon EXIT
