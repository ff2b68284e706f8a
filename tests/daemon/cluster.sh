# Jobs on their nodes (execution: ssh), on a test cluster of 4 nodes, each
# its own network, UTS and mount namespace with its own sshd
# (tests/cluster_lib.sh): the script runs on its first node as its owner,
# in its directory, with its nodes in its environment; blaunch runs on
# every node, and Open MPI's mpirun and MPICH's mpiexec.hydra use it with
# no flags; every process of a job on every node ends at its limit (a
# setsid'd, TERM-ignoring grandchild too), on bkill, on bctl down, and by
# the nodes' own limit while the daemon is killed; a restart finds a
# running 4-node job again; a node whose sshd dies
# or whose link is cut is marked down, its job fails with the reason and
# the guarantees it moved are announced; what a dead node side left on a
# node is killed when the next job starts there; blaunch refuses a node
# outside the job, another user's job and a process outside the job; a
# working directory missing on the node fails the job at once; a limit
# raised by bctl reaches the nodes. Nodes 1 and 2 contain jobs with cgroups
# (when the machine has cgroup2), 3 and 4 with marked sessions.
. "$BF_TOP/tests/lib.sh"
. "$BF_TOP/tests/cluster_lib.sh"
BLAUNCH="$BF_BUILD/blaunch"
BCTL="$BF_BUILD/bctl"
NOBODY="setpriv --reuid nobody --regid nogroup --clear-groups"
cd "$TMP" || exit 1
chmod 755 "$TMP"
mkdir w && chmod 777 w

# ---- cgroups for nodes 1 and 2 ----
mnt=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
CG=
if [ "$(id -u)" -eq 0 ] && [ -n "$mnt" ] && mkdir "$mnt/bf-cluster-$$" 2>/dev/null; then
	CG="$mnt/bf-cluster-$$"
fi
# After the cluster: what is left in our cgroups is killed, then each is
# removed, deepest first.
cg_cleanup() {
	[ -n "$CG" ] && [ -d "$CG" ] || return 0
	find "$CG" -name cgroup.procs | while read -r f; do
		for p in $(cat "$f"); do kill -9 "$p" 2>/dev/null; done
	done
	sleep 0.2
	find "$CG" -depth -type d -exec rmdir {} \; 2>/dev/null
}
trap 'cluster_cleanup; cg_cleanup' EXIT
node_cmd() {	# node_cmd K: its node side's command
	if [ -n "$CG" ] && [ "$1" -le 2 ]; then
		echo "$BF_BUILD/backfilld --node --cgroup $CG/node$1 --blaunch $BLAUNCH"
	else
		echo "$BF_BUILD/backfilld --node --cgroup none --blaunch $BLAUNCH"
	fi
}
CLUSTER_NODE_CMD_1=$(node_cmd 1) CLUSTER_NODE_CMD_2=$(node_cmd 2)
CLUSTER_NODE_CMD_3=$(node_cmd 3) CLUSTER_NODE_CMD_4=$(node_cmd 4)

CHECKS="script-on-first-node environment output-file blaunch-all mpirun hydra limit-every-node
bkill-every-node bctl-down-every-node kill9-found-again kill9-limit-held kill9-collected sshd-killed-down sshd-killed-failed
guarantee-announced link-cut-down link-cut-failed link-cut-announced link-cut-node-killed stale-killed
refuse-outside-node refuse-other-user refuse-outside-process cwd-missing bctl-limit-reaches reload-says"
if ! cluster_up 4; then
	for c in $CHECKS; do skip_check "$c" "$CLUSTER_SKIP"; done
	done_testing
	exit 0
fi

{ cluster_conf; cat <<EOF; } >cluster.yaml
nodes: $CLUSTER_NODELIST
policy: conservative
node_command: $BF_BUILD/backfilld --node
node_timeout: 6s
kill_grace: 2s
max_queued_per_user: unlimited
EOF
start_cluster_daemon() {
	START_WRAP=$CLUSTER_START_WRAP start_daemon --config "$TMP/cluster.yaml"
}
start_cluster_daemon || { ok 1 "the daemon starts in cluster mode"; done_testing; exit 1; }
export PATH="$BF_BUILD:$PATH"

state() { "$BQ" -l "$1" --json 2>/dev/null | tr ',' '\n' | sed -n 's/^"state":"\([a-z]*\)"$/\1/p' | head -1; }
reason() { "$BQ" -l "$1" | sed -n 's/^Reason: *//p'; }
sub() {	# sub ARGS...: as nobody, in w/; prints the job id
	(cd "$TMP/w" && $NOBODY "$BSUB" "$@") | sed -n 's/^Job \([0-9]*\) .*/\1/p'
}
# alive PIDFILE...: how many of the processes named in the files live; a
# file TAG.nodeK holds a pid of node K's own pid namespace.
alive() {
	c=0
	for f in "$@"; do
		p=$(cat "$f" 2>/dev/null) || continue
		k=${f##*.node}
		# shellcheck disable=SC2016
		in_node "$k" sh -c 'st=$(sed -n "s/^State:\t\(.\).*/\1/p" "/proc/$1/status" 2>/dev/null)
			[ -n "$st" ] && [ "$st" != Z ]' sh "$p" && c=$((c + 1))
	done
	echo "$c"
}
# until_gone SECONDS PIDFILE...: until none lives; the status says.
until_gone() {
	t=$1
	shift
	i=0
	while [ "$(alive "$@")" -ne 0 ] && [ $i -lt $((t * 10)) ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(alive "$@")" -eq 0 ]
}
# wait_files N GLOB-PREFIX: until N files PREFIX* exist (20 s at most).
wait_files() {
	i=0
	while [ "$(ls "$2"* 2>/dev/null | wc -l)" -lt "$1" ] && [ $i -lt 200 ]; do
		sleep 0.1; i=$((i + 1))
	done
	[ "$(ls "$2"* 2>/dev/null | wc -l)" -ge "$1" ]
}

# ---- the script, its environment, blaunch, MPI ----
cat >w/env.sh <<'EOF'
#!/bin/sh
echo "host=$(hostname)"
echo "pwd=$(pwd)"
echo "nodes=$BSUB_NODES"
echo "lsb_hosts=$LSB_HOSTS"
echo "numproc=$LSB_DJOB_NUMPROC"
echo "hostfile=$(tr '\n' ' ' <"$BSUB_HOSTFILE")"
echo "user=$(id -un)"
blaunch hostname | sort | tr '\n' ' ' | sed 's/^/blaunch=/'
echo
mpirun hostname 2>mpirun.err | sort | tr '\n' ' ' | sed 's/^/mpirun=/'
echo
if command -v mpiexec.hydra >/dev/null; then
	timeout 30 mpiexec.hydra hostname 2>hydra.err | sort | tr '\n' ' ' | sed 's/^/hydra=/'
	echo
fi
EOF
chmod 755 w/env.sh
# The job gets its submitter's environment; Open MPI reads the login shell
# from SHELL when the owner's passwd one (nobody's nologin) is none it knows,
# and warns without it: a submitter's environment has it.
id=$(SHELL=/bin/sh sub -n 4 -t 1 -o "$TMP/w/env.out" ./env.sh)
wait_state "$id" "$ENDED" 60
first=$(sed -n 's/^nodes=\([^ ]*\).*/\1/p' w/env.out)
grep -q "^host=$first\$" w/env.out && [ -n "$first" ]
ok $? "a 4-node job's script runs on its first node ($first: $(sed -n 's/^host=//p' w/env.out))"
grep -q "^pwd=$TMP/w\$" w/env.out && grep -q '^user=nobody$' w/env.out &&
	grep -q '^nodes=node1 node2 node3 node4$' w/env.out &&
	grep -q '^lsb_hosts=node1 node2 node3 node4$' w/env.out && grep -q '^numproc=4$' w/env.out &&
	grep -q '^hostfile=node1 node2 node3 node4 $' w/env.out
ok $? "as its owner, in its directory, with its nodes in BSUB_NODES, BSUB_HOSTFILE and LSB_*"
[ "$(state "$id")" = done ]
ok $? "its output file is where -o said, written on the node ($(state "$id"))"
grep -q '^blaunch=node1 node2 node3 node4 $' w/env.out
ok $? "blaunch on all 4 nodes prints 4 hostnames ($(sed -n 's/^blaunch=//p' w/env.out))"
grep -q '^mpirun=node1 node2 node3 node4 $' w/env.out
ok $? "mpirun hostname, no flags: 4 ranks on the 4 nodes ($(sed -n 's/^mpirun=//p' w/env.out | cut -c1-200)$(head -c 300 w/mpirun.err 2>/dev/null))"
if command -v mpiexec.hydra >/dev/null; then
	grep -q '^hydra=node1 node2 node3 node4 $' w/env.out
	ok $? "MPICH's mpiexec.hydra hostname, no flags: 4 ranks on the 4 nodes ($(sed -n 's/^hydra=//p' w/env.out | cut -c1-200)$(head -c 300 w/hydra.err 2>/dev/null))"
else
	skip_check hydra "MPICH's mpiexec.hydra is not installed (mk/deps.sh --tests installs mpich)"
fi

# ---- everything a job starts ends with it, on every node ----
# On each node a grandchild in a session of its own that ignores TERM;
# the script ignores TERM too.
cat >w/spread.sh <<'EOF'
#!/bin/sh
tag=$1
blaunch "setsid sh -c 'trap \"\" TERM; echo \$\$ >$PWD/$tag.\$(hostname); exec sleep 300' </dev/null >/dev/null 2>&1 &"
trap '' TERM
sleep 300
EOF
chmod 755 w/spread.sh
id=$(sub -n 4 -t 0:00:04 ./spread.sh lim)
wait_files 4 w/lim.
wait_state "$id" "$ENDED" 30
until_gone 5 w/lim.*
ok $? "past its limit, every process on every node is gone, setsid'd and TERM-ignoring ones too ($(state "$id"), $(alive w/lim.*) left)"

id=$(sub -n 4 -t 5 ./spread.sh bk)
wait_files 4 w/bk.
$NOBODY "$BKILL" "$id" >/dev/null
wait_state "$id" "cancelled" 20
until_gone 5 w/bk.*
ok $? "bkill of a running 4-node job ends every process on every node ($(state "$id"), $(alive w/bk.*) left)"

id=$(sub -n 4 -t 5 ./spread.sh dn)
wait_files 4 w/dn.
"$BCTL" down node2 --reason "cluster test" >/dev/null
wait_state "$id" "failed" 20
until_gone 5 w/dn.*
ok $? "bctl down of one of its nodes ends every process of the job on every node ($(state "$id"), $(alive w/dn.*) left)"
"$BCTL" up node2 >/dev/null

# ---- kill -9 of the daemon ----
# A 4-node job: the daemon killed while it runs, and started again at
# once, finds it on its nodes; killed again, the nodes end it at its limit
# themselves; the next start records it killed.
a=$(sub -n 4 -t 0:00:20 ./spread.sh k9a)
wait_files 4 w/k9a.
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
DPID=
[ "$(alive w/k9a.*)" -eq 4 ]
k9a_alive=$?
start_cluster_daemon
[ $k9a_alive -eq 0 ] && [ "$(state "$a")" = running ] && [ "$(alive w/k9a.*)" -eq 4 ]
ok $? "after a kill -9, the restart finds the running 4-node job again on its 4 nodes ($(state "$a"), $(alive w/k9a.*) alive)"
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
DPID=
# Its limit (20 s from its start), the nodes' second, the grace (2 s),
# while no daemon runs.
until_gone 35 w/k9a.*
ok $? "with the daemon killed again, the 4 nodes end the job at its limit themselves ($(alive w/k9a.*) left)"
start_cluster_daemon
wait_state "$a" killed 20
ok $? "the next start collects its end: killed at its limit ($(state "$a"))"

# ---- a node lost: sshd killed ----
cp daemon.log log.before
j1=$(sub -n 4 -t 5 ./spread.sh sk)
wait_files 4 w/sk.
j2=$(sub -n 4 -t 1 ./spread.sh never)
node_sshd_kill 3
wait_state "$j1" failed 30
"$BCTL" nodes >nodes.out
grep -q '^node3 .*down .*lost' nodes.out
ok $? "node3's sshd killed: the node is marked down with the reason ($(grep '^node3' nodes.out | tr -s ' '))"
reason "$j1" | grep -q 'node node3 lost'
ok $? "its job fails with the reason ($(state "$j1"): $(reason "$j1"))"
diff log.before daemon.log | grep -q "job $j2: guarantee broken: .*(nodes lost)"
ok $? "the guarantee it moved is announced (job $j2: $(diff log.before daemon.log | grep -c "job $j2: guarantee broken") line)"
until_gone 10 w/sk.* || echo "# job $j1 left $(alive w/sk.*) processes"
node_sshd_start 3
"$BKILL" "$j2" >/dev/null
"$BCTL" up node3 >/dev/null

# ---- a node lost: its link cut ----
cp daemon.log log.before
j=$(sub -n 4 -t 5 ./spread.sh cut)
wait_files 4 w/cut.
j2=$(sub -n 4 -t 1 ./spread.sh never)
node_cut 4
wait_state "$j" failed 30
"$BCTL" nodes | grep -q '^node4 .*down .*lost: the link was silent'
ok $? "node4's link cut: marked down ($("$BCTL" nodes | grep '^node4' | tr -s ' '))"
reason "$j" | grep -q 'node node4 lost'
ok $? "its job fails with the reason ($(reason "$j"))"
diff log.before daemon.log | grep -q "job $j2: guarantee broken: .*(nodes lost)"
ok $? "the guarantee it moved is announced (job $j2: $(diff log.before daemon.log | grep -c "job $j2: guarantee broken") line)"
"$BKILL" "$j2" >/dev/null
# node4's side hears nothing either and ends the job there itself.
until_gone 15 w/cut.node4
ok $? "node4 itself ends the job it can no longer report ($(alive w/cut.node4) left)"
node_heal 4
"$BCTL" up node4 >/dev/null

# ---- stale processes of a dead node side ----
j=$(sub -n 4 -t 5 ./spread.sh st)
wait_files 4 w/st.
for p in $(node_procs 2); do
	grep -q "node side of job $j" "/proc/$p/cmdline" 2>/dev/null && kill -9 "$p"
done
wait_state "$j" failed 30
stale=$(alive w/st.node2)
"$BCTL" up node2 >/dev/null
j=$(sub -n 4 -t 5 ./spread.sh st2)
wait_files 4 w/st2.
[ "$stale" -eq 1 ] && [ "$(alive w/st.node2)" -eq 0 ]
ok $? "what a dead node side left on node2 is killed when the next job starts there (left $stale, now $(alive w/st.node2))"

# ---- blaunch's refusals ----
cat >w/refuse.sh <<'EOF'
#!/bin/sh
blaunch -z node9 hostname 2>refuse.err1; echo "rc1=$?"
blaunch node9 hostname 2>refuse.err2; echo "rc2=$?"
EOF
chmod 755 w/refuse.sh
"$BKILL" "$j" >/dev/null
wait_state "$j" cancelled 20
id=$(sub -n 2 -t 1 -o "$TMP/w/refuse.out" ./refuse.sh)
wait_state "$id" "$ENDED" 30
grep -q '^rc1=255$' w/refuse.out && grep -q '^rc2=255$' w/refuse.out &&
	grep -q "node node9 is not one of job $id's nodes" w/refuse.err1 &&
	grep -q "node node9 is not one of job $id's nodes" w/refuse.err2
ok $? "blaunch refuses a node outside its job ($(cat w/refuse.err1))"
# Root's job on node1; nobody, logged in on node1, aims at its launcher.
cd "$TMP/w" || exit 1
rj=$("$BSUB" -n 4 -t 5 sleep 300 | sed -n 's/^Job \([0-9]*\) .*/\1/p')
cd "$TMP" || exit 1
wait_state "$rj" running 20
sock=/run/backfilld/node/$rj/launch.sock
i=0
while ! in_node 1 test -S "$sock" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
in_node 1 env BSUB_JOBID="$rj" BSUB_NODES="$CLUSTER_NODES" BSUB_LAUNCHER="$sock" \
	$NOBODY "$BLAUNCH" -z node2 hostname >other.out 2>other.err
rc=$?
[ $rc -eq 255 ] && ! grep -q node2 other.out
ok $? "blaunch refuses another user's job (exit $rc: $(head -1 other.err))"
# Root on node1, but not a process of the job: the node side says no.
in_node 1 env BSUB_JOBID="$rj" BSUB_NODES="$CLUSTER_NODES" BSUB_LAUNCHER="$sock" \
	"$BLAUNCH" -z node2 hostname >outside.out 2>outside.err
rc=$?
[ $rc -eq 255 ] && grep -q "only a process of job $rj" outside.err
ok $? "and a process outside the job, even of its owner (exit $rc: $(head -1 outside.err))"
"$BKILL" "$rj" >/dev/null
wait_state "$rj" cancelled 20

# ---- a working directory missing on the node ----
# /run is each node's own: a directory made in the machine's /run is
# missing on every node.
gone_dir=/run/bf-cluster-cwd-$$
mkdir -m 777 "$gone_dir"
id=$(cd "$gone_dir" && $NOBODY "$BSUB" -n 1 -t 1 -o "$TMP/w/cwd.out" /bin/true |
	sed -n 's/^Job \([0-9]*\) .*/\1/p')
rmdir "$gone_dir"
wait_state "$id" "$ENDED" 20
[ "$(state "$id")" = failed ] && reason "$id" | grep -q "on node node.: changing to $gone_dir: No such file"
ok $? "a working directory missing on the node fails the job at once ($(state "$id"): $(reason "$id"))"

# ---- bctl limit reaches the nodes ----
id=$(sub -n 2 -t 0:00:04 ./spread.sh bl)
wait_files 2 w/bl.
"$BCTL" limit "$id" 5 >/dev/null
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
DPID=
sleep 8	# past the old limit, its grace and the nodes' second
[ "$(alive w/bl.*)" -eq 2 ]
ok $? "a limit raised with bctl reaches the nodes: the job outlives its old limit with the daemon down ($(alive w/bl.*) of 2 alive)"
start_cluster_daemon
"$BKILL" "$id" >/dev/null
wait_state "$id" cancelled 20
until_gone 5 w/bl.* || echo "# job $id left $(alive w/bl.*) processes"

# ---- a reload: the cluster's keys take a restart, and it says so ----
sed -i 's/^node_timeout: 6s$/node_timeout: 7s/' cluster.yaml
kill -HUP "$DPID"
wait_log "reload: node_timeout changed: it takes effect at the next restart" 10
ok $? "a reload that changes a cluster key says it takes effect at the next restart"
done_testing
