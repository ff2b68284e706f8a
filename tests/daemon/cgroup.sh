# Job containment: with a cgroup2 subtree (--cgroup DIR), a job's whole
# process tree, even a process that left its session with setsid and
# dropped BSUB_JOBID (which escapes the process group and the /proc sweep),
# is killed at the time limit and on bkill; its CPU time and peak memory
# are recorded; its cgroup is removed at the end; a daemon killed with -9
# and started again still contains and kills a running job, and removes
# what a job that is no longer running left. Without cgroups (--cgroup
# none) the daemon says so once, and jobs are still killed by process
# group, with their CPU time from rusage. Without --cgroup the daemon
# takes the cgroup it was started in (a unit's, Delegate=yes), also when a
# restart begins there again; in the root cgroup it uses process groups.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

jfield() {
	"$BQ" -l "$1" --json 2>/dev/null | tr ',' '\n' |
		sed -n "s/^ *\"$2\": *\([-0-9a-z\"]*\).*/\1/p" | head -1
}
# gone PID: the process no longer exists (a zombie counts as gone: it
# runs nothing and holds nothing but its pid); waits at most 5 s.
gone() {
	i=0
	while [ $i -lt 50 ]; do
		st=$(sed -n 's/^State:\t\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)
		[ -z "$st" ] || [ "$st" = Z ] && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
# session PID: its session id (field 6 of /proc/PID/stat, after the name).
session() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f4; }

# A job that leaves a daemonized process behind: its own session, no
# BSUB_JOBID, its pid in escapee.ID; then it waits.
cat >escape.sh <<'EOF'
#!/bin/sh
env -u BSUB_JOBID setsid sh -c 'echo $$ >"$1"; exec sleep 300' sh "$PWD/escapee.$BSUB_JOBID" \
	</dev/null >/dev/null 2>&1 &
echo $$ >"$PWD/job.$BSUB_JOBID"
sleep 300
EOF
# About a second of CPU in the shell itself (a fixed amount of work, not a
# time: a busy machine makes it slower, not shorter), with 20 MB held.
cat >burn.sh <<'EOF'
#!/bin/sh
x=$(head -c 20000000 /dev/zero | tr '\0' a)
i=0
while [ $i -lt 500000 ]; do i=$((i + 1)); done
echo "${#x}"
EOF
# A job with a child in its own process group.
cat >child.sh <<'EOF'
#!/bin/sh
sleep 300 &
echo $! >"$PWD/child.$BSUB_JOBID"
sleep 300
EOF

# ---- with cgroups ----
mnt=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
CG=
why=
if [ "$(id -u)" -ne 0 ]; then
	why="not root: cannot make a cgroup to test with"
elif [ -z "$mnt" ]; then
	why="no cgroup2 file system is mounted"
elif ! mkdir "$mnt/bf-test-$$" 2>/dev/null; then
	why="cannot create a cgroup under $mnt"
else
	CG="$mnt/bf-test-$$"
fi
# Our cgroup goes after the daemon and its jobs: anything left in it is
# killed, then every directory removed, deepest first.
cg_cleanup() {
	for top in "$CG" "$CGU"; do
		[ -n "$top" ] && [ -d "$top" ] || continue
		for d in "$top"/jobs/* "$top"/jobs "$top"/daemon "$top"; do
			[ -d "$d" ] || continue
			echo 1 >"$d/cgroup.kill" 2>/dev/null
			i=0
			while ! rmdir "$d" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		done
	done
}
CGU=
# start_in CGROUP ARGS...: start_daemon, but the daemon begins in CGROUP,
# where systemd puts a unit's main process.
printf 'echo $$ >"$1/cgroup.procs" || exit 1\nshift\nexec "$@"\n' >"$TMP/in-cgroup.sh"
start_in() {
	START_WRAP="sh $TMP/in-cgroup.sh $1"
	shift
	start_daemon "$@"
	r=$?
	START_WRAP=
	return $r
}
trap 'cleanup_daemon; cg_cleanup' EXIT

if [ -z "$CG" ]; then
	for t in "the daemon uses the given cgroup" "limit: the whole tree is killed" \
		"bkill: the whole tree is killed" "CPU time and peak memory are recorded" \
		"a restart re-adopts a job in its cgroup and still kills it" \
		"no --cgroup: the daemon's own cgroup" "its job is in it" \
		"a restart in the unit's cgroup, as systemd makes it" \
		"in the root cgroup: process groups, said once"; do
		n=$((n + 1)); echo "ok $n - $t # SKIP $why"
	done
else
	start_daemon --nodes 4 --kill-grace 1 --cgroup "$CG"
	grep -q "jobs are contained in cgroups under $CG/jobs" "$TMP/daemon.log" &&
		grep -qx "$DPID" "$CG/daemon/cgroup.procs" && [ -d "$CG/jobs" ] &&
		! grep -q "cgroup containment unavailable" "$TMP/daemon.log"
	ok $? "the daemon uses $CG: it is in $CG/daemon, jobs go under $CG/jobs"
	mem_src=rusage
	grep -qw memory "$CG/cgroup.controllers" && mem_src=cgroup

	# 1: killed at its time limit.
	"$BSUB" -n 1 -t 3s escape.sh >/dev/null
	wait_state 1 running 10 && wait_file escapee.1 && wait_file job.1
	e=$(cat escapee.1 2>/dev/null); jp=$(cat job.1 2>/dev/null)
	[ -n "$e" ] && grep -qx "$e" "$CG/jobs/1/cgroup.procs" &&
		[ "$(session "$e")" != "$(session "$jp")" ] && ! grep -q BSUB_JOBID "/proc/$e/environ"
	ok $? "job 1's daemonized process ($e) left the job's session and BSUB_JOBID, but is in $CG/jobs/1"
	wait_state 1 killed 15 && gone "$e" && gone "$jp" && [ ! -d "$CG/jobs/1" ]
	ok $? "limit: job 1 is killed, its daemonized process too, and its cgroup is removed"

	# 2: cancelled.
	"$BSUB" -n 1 -t 5m escape.sh >/dev/null
	wait_state 2 running 10 && wait_file escapee.2 && wait_file job.2
	e=$(cat escapee.2 2>/dev/null)
	grep -qx "$e" "$CG/jobs/2/cgroup.procs" && "$BKILL" 2 >/dev/null &&
		wait_state 2 cancelled 15 && gone "$e" && [ ! -d "$CG/jobs/2" ]
	ok $? "bkill: job 2 and its daemonized process ($e) are killed, its cgroup removed"

	# 3: what it used.
	"$BSUB" -n 1 -t 5m burn.sh >/dev/null
	wait_state 3 done 60
	cpu=$(jfield 3 cpu_us); csrc=$(jfield 3 cpu_source)
	mem=$(jfield 3 max_memory_kb); msrc=$(jfield 3 memory_source)
	[ -n "$cpu" ] && [ "$cpu" != null ] && [ "$cpu" -ge 500000 ] && [ "$csrc" = '"cgroup"' ] &&
		[ -n "$mem" ] && [ "$mem" != null ] && [ "$mem" -ge 15000 ] && [ "$msrc" = "\"$mem_src\"" ] &&
		"$BQ" -l 3 | grep -q "^CPU time: .* s (all its processes, from its cgroup)" &&
		"$BQ" -l 3 | grep -q "^Max memory: .* MiB" && [ ! -d "$CG/jobs/3" ]
	ok $? "job 3's CPU time ($cpu us, from $csrc) and peak memory ($mem KiB, from $msrc) are recorded"

	# 4: a restart (kill -9) re-adopts a running job in its cgroup, which
	# still contains and kills it; a cgroup left by no running job goes.
	"$BSUB" -n 1 -t 5m escape.sh >/dev/null
	wait_state 4 running 10 && wait_file escapee.4
	e=$(cat escapee.4 2>/dev/null)
	mkdir "$CG/jobs/999" && sh -c 'echo $$ >"$1/cgroup.procs"; exec sleep 300' sh "$CG/jobs/999" &
	stray=$!
	# (in it before the daemon dies: else the restart's sweep may remove
	# the empty cgroup first, and the stray would never be in one)
	i=0
	while [ $i -lt 50 ] && ! grep -qx "$stray" "$CG/jobs/999/cgroup.procs" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	stop_daemon KILL
	start_daemon --nodes 4 --kill-grace 1 --cgroup "$CG"
	wait_state 4 running 5 && grep -q "job 4: running, found again" "$TMP/daemon.log" &&
		grep -qx "$e" "$CG/jobs/4/cgroup.procs" && gone "$stray" && [ ! -d "$CG/jobs/999" ]
	ok $? "after kill -9 and a start, job 4 runs on in its cgroup; a stray cgroup (999) was emptied and removed"
	"$BKILL" 4 >/dev/null && wait_state 4 cancelled 15 && gone "$e" && [ ! -d "$CG/jobs/4" ]
	ok $? "a restart re-adopts a job in its cgroup and still kills it: job 4 and its daemonized process ($e) are gone"
	stop_daemon

	# 5: no --cgroup, as under the unit (Delegate=yes): the daemon finds the
	# cgroup it was started in and makes its tree there.
	CGU="$mnt/bf-unit-$$"
	mkdir "$CGU"
	start_in "$CGU" --nodes 4 --kill-grace 1
	grep -q "jobs are contained in cgroups under $CGU/jobs" "$TMP/daemon.log" &&
		grep -qx "$DPID" "$CGU/daemon/cgroup.procs" &&
		grep -q "the memory controller is left off in $CGU" "$TMP/daemon.log"
	ok $? "no --cgroup: the daemon moves from its own cgroup to $CGU/daemon, jobs go under $CGU/jobs"
	"$BSUB" -n 1 -t 5m escape.sh >/dev/null
	wait_state 5 running 10 && wait_file escapee.5
	e=$(cat escapee.5 2>/dev/null)
	grep -qx "$e" "$CGU/jobs/5/cgroup.procs"
	ok $? "job 5's daemonized process ($e) is in $CGU/jobs/5"
	# systemd (before DelegateSubgroup=) starts the next daemon in the
	# unit's cgroup itself, where the jobs' supervisors are not.
	stop_daemon KILL
	start_in "$CGU" --nodes 4 --kill-grace 1 && wait_state 5 running 5 &&
		grep -q "job 5: running, found again" "$TMP/daemon.log" &&
		"$BKILL" 5 >/dev/null && wait_state 5 cancelled 15 && gone "$e" && [ ! -d "$CGU/jobs/5" ]
	ok $? "after kill -9, a start in the unit's cgroup finds job 5 again and still kills all of it"
	stop_daemon
	# The root of the hierarchy is nobody's to delegate: process groups.
	lines=$(wc -l <"$TMP/daemon.log")
	start_in "$mnt" --nodes 4 --kill-grace 1 && stop_daemon
	c=$(tail -n +"$((lines + 1))" "$TMP/daemon.log" | grep -c "cgroup containment unavailable: the daemon runs in the root of the cgroup2 hierarchy")
	[ "$c" -eq 1 ]
	ok $? "started in the root cgroup: process groups only, said once ($c)"
fi

# ---- without: process groups ----
before=$(wc -l <"$TMP/daemon.log")
start_daemon --nodes 4 --kill-grace 1 --cgroup none
c=$(grep -c "cgroup containment unavailable: disabled with --cgroup none; jobs are contained by process group only" \
	"$TMP/daemon.log")
[ "$c" -eq 1 ]
ok $? "--cgroup none: the daemon says once that jobs are contained by process group only"
# Ids go on from the jobs above (4 if they ran).
id=1
[ -n "$CG" ] && id=6
"$BSUB" -n 1 -t 3s child.sh >/dev/null
wait_state "$id" running 10 && wait_file "child.$id"
ch=$(cat "child.$id" 2>/dev/null)
wait_state "$id" killed 15 && gone "$ch"
ok $? "limit: job $id and its child ($ch), in its process group, are killed"
"$BSUB" -n 1 -t 5m child.sh >/dev/null
id2=$((id + 1))
wait_state "$id2" running 10 && wait_file "child.$id2"
ch=$(cat "child.$id2" 2>/dev/null)
"$BKILL" "$id2" >/dev/null && wait_state "$id2" cancelled 15 && gone "$ch"
ok $? "bkill: job $id2 and its child ($ch) are killed"
"$BSUB" -n 1 -t 5m burn.sh >/dev/null
id3=$((id2 + 1))
wait_state "$id3" done 60
cpu=$(jfield "$id3" cpu_us); mem=$(jfield "$id3" max_memory_kb)
[ -n "$cpu" ] && [ "$cpu" != null ] && [ "$cpu" -ge 500000 ] &&
	[ "$(jfield "$id3" cpu_source)" = '"rusage"' ] && [ -n "$mem" ] && [ "$mem" != null ] &&
	[ "$mem" -ge 15000 ] && "$BQ" -l "$id3" | grep -q "^CPU time: .* (its processes that were waited for)" &&
	"$BQ" -l "$id3" | grep -q "^Max memory: .* MiB (its largest process)"
ok $? "job $id3's CPU time ($cpu us) and peak memory ($mem KiB) come from rusage, and say so"
# What the cgroups above are for: here a process that leaves the session
# and drops BSUB_JOBID outlives its job (the documented limit of process
# groups; the test then kills it itself).
"$BSUB" -n 1 -t 5m escape.sh >/dev/null
id4=$((id3 + 1))
wait_state "$id4" running 10 && wait_file "escapee.$id4"
e=$(cat "escapee.$id4" 2>/dev/null)
"$BKILL" "$id4" >/dev/null && wait_state "$id4" cancelled 15 && ! gone "$e"
ok $? "without cgroups, job $id4's daemonized process ($e) outlives its job (process groups' limit)"
[ -n "$e" ] && kill -9 "$e" 2>/dev/null
c=$(tail -n +"$((before + 1))" "$TMP/daemon.log" | grep -c "cgroup containment unavailable")
[ "$c" -eq 1 ]
ok $? "the fallback was said once in all this daemon's life ($c)"
done_testing
