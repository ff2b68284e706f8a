# The test cluster itself (tests/cluster_lib.sh), before any daemon runs on
# it: four nodes, each its own network, UTS and mount namespace with its
# own sshd, reached over ssh from the head's namespace only; their host
# names differ, /run is private to each while $TMP is shared; the nodes
# reach each other and resolve each other's names; a cut link fails
# within the connect timeout and heals; a killed sshd breaks the sessions
# and refuses new ones until started again; cluster_down leaves no
# process in the namespaces and nothing in the machine's /run. Without
# root, the tools or the namespaces, every check is skipped with the
# reason.
. "$BF_TOP/tests/lib.sh"
. "$BF_TOP/tests/cluster_lib.sh"
cd "$TMP" || exit 1

# check STATUS DESCRIPTION [DETAIL]: ok, and on failure DETAIL as a comment.
check() {
	ok "$1" "$2"
	[ "$1" -eq 0 ] || [ -z "${3:-}" ] || printf '%s\n' "$3" | sed 's/^/#   /'
}
ms() { echo $(($(date +%s%N) / 1000000)); }
# running PID: the process runs (a zombie does not).
running() {
	st=$(sed -n 's/^State:\t\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}
# in_ns LINK: the pids whose network namespace is LINK (net:[N]).
in_ns() {
	find /proc/[0-9]*/ns/net -maxdepth 0 -lname "$(echo "$1" | tr '[]' '??')" 2>/dev/null | cut -d/ -f3
}
# comm_in PIDS NAME: one of PIDS is named NAME; prints it.
comm_in() {
	for p in $1; do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ] && { echo "$p"; return 0; }
	done
	return 1
}

CHECKS="ssh to each node runs its forced command there: node1..node4 answer their own names
the head: hostname head, 10.88.0.1/24 on its bridge with veth1..veth4; the machine's hostname unchanged
the forced command gets %n replaced and the client's command in SSH_ORIGINAL_COMMAND
the nodes' sshd listen inside the nodes only: the machine's namespace has no such address or listener, and ssh from it fails
the nodes reach each other: ssh from node1 to node2, and from node3 to node4, each from the node's own address
each node resolves every node's name
/run is private to each node (a file in node1's is in neither node2's nor the machine's; its tmpfs is not mounted in the machine's namespace), \$TMP is shared
node_procs 1: node1's sshd listener and a process started in node1, not its holder nor the test
node_cut 2: ssh to node2 fails within its ConnectTimeout (2 s) while node1 still answers
node_heal 2: node2 answers again
node_sshd_kill 3: a running session breaks (ssh exits 255), no sshd is left in node3, a new ssh is refused; what the session ran lives on
node_sshd_start 3: node3 answers again
cluster_down: no process is left in the cluster's namespaces (the holders, sshd, sessions' leftovers and the test's own processes in them all gone), nor the watchdog
cluster_down: the machine's /run has no entry the nodes made, the tmpfs mounts went with the namespaces, and a second cluster_down is a no-op"

run_before=$(ls -A /run)
host_before=$(hostname)
CLUSTER_NODE_CMD=/bin/hostname
t0=$(ms)
if ! cluster_up 4; then
	printf '%s\n' "$CHECKS" >"$TMP/checks"
	while IFS= read -r t; do skip_check "$t" "$CLUSTER_SKIP"; done <"$TMP/checks"
	done_testing
	exit 0
fi
t_up=$(($(ms) - t0))

# 1: each node's name over ssh.
bad=
for k in 1 2 3 4; do
	out=$(ssh_node "$k" </dev/null 2>&1)
	[ "$out" = "node$k" ] || bad="$bad node$k: '$out'"
done
[ -z "$bad" ]
check $? "ssh to each node runs its forced command there: node1..node4 answer their own names (cluster up in $t_up ms)" "$bad"

# 2: the head.
hh=$(nsenter -t "$HEAD_PID" -u hostname)
br=$(in_head ip -4 -br addr show dev "$CLUSTER_BRIDGE" 2>&1)
ports=$(in_head ip -br link show master "$CLUSTER_BRIDGE" 2>&1 | awk '{ sub(/@.*/, "", $1); print $1 }' | sort | tr '\n' ' ')
[ "$hh" = head ] && [ "$(hostname)" = "$host_before" ] && echo "$br" | grep -q ' 10\.88\.0\.1/24' &&
	[ "$ports" = "veth1 veth2 veth3 veth4 " ]
check $? "the head: hostname head, 10.88.0.1/24 on its bridge with veth1..veth4; the machine's hostname unchanged" \
	"head's hostname '$hh', the machine's '$(hostname)' (was '$host_before'); bridge: $br; ports: $ports"

# 3: %n and the client's command, through quotes.
# shellcheck disable=SC2016
node_command 4 'printf "%s\n" "%n: $SSH_ORIGINAL_COMMAND"'
out=$(ssh_node 4 'a "b" \c' </dev/null 2>&1)
node_command 4 "$CLUSTER_NODE_CMD"
[ "$out" = 'node4: a "b" \c' ] && [ "$(ssh_node 4 </dev/null 2>&1)" = node4 ]
check $? "the forced command gets %n replaced and the client's command in SSH_ORIGINAL_COMMAND" \
	"got '$out'; $(cat "$CLUSTER_DIR/node4/authorized_keys")"

# 4: nothing of it in the machine's namespace.
listen1=$(in_node 1 ss -Hltn 2>&1)
t=$(ms)
ssh -F "$CLUSTER_SSH_CONFIG" -o ConnectTimeout=1 node1 </dev/null >"$TMP/root.out" 2>&1
rc=$?
t=$(($(ms) - t))
echo "$listen1" | grep -q ' 10\.88\.0\.11:22 ' && ! ss -Hltn | grep -q ' 10\.88\.0\.' &&
	! ip -4 -br addr | grep -q ' 10\.88\.0\.' && [ $rc -ne 0 ] && ! grep -q node1 "$TMP/root.out"
check $? "the nodes' sshd listen inside the nodes only: the machine's namespace has no such address or listener, and ssh from it fails" \
	"node1 listens: $listen1; ssh from the machine's namespace: status $rc in $t ms: $(cat "$TMP/root.out")"

# 5: node to node.
o12=$(in_node 1 ssh -F "$CLUSTER_SSH_CONFIG" node2 </dev/null 2>&1)
o34=$(in_node 3 ssh -F "$CLUSTER_SSH_CONFIG" node4 </dev/null 2>&1)
[ "$o12" = node2 ] && [ "$o34" = node4 ] &&
	grep -q 'Accepted publickey for root from 10\.88\.0\.11 ' "$CLUSTER_DIR/node2/sshd.log" &&
	grep -q 'Accepted publickey for root from 10\.88\.0\.13 ' "$CLUSTER_DIR/node4/sshd.log"
check $? "the nodes reach each other: ssh from node1 to node2, and from node3 to node4, each from the node's own address" \
	"node1 -> node2: '$o12'; node3 -> node4: '$o34'"

# 5b: names, as a cluster's DNS gives them (MPICH calls back by name).
r=$(in_node 3 getent hosts node1 | tr -s ' ')
[ "$r" = "10.88.0.11 node1" ] && ! grep -q '^10\.88\.0\.11[[:space:]]' /etc/hosts
check $? "each node resolves every node's name (node3: $r); the machine's /etc/hosts is unchanged" \
	"the machine's /etc/hosts: $(grep 10.88.0 /etc/hosts)"

# 6: /run private, $TMP shared.
probe=bf-cluster-probe.$$
# shellcheck disable=SC2016
in_node 1 sh -c 'echo x >"/run/$1" && echo y >"$2/shared.$1"' sh "$probe" "$TMP"
in_node 1 test -f "/run/$probe" && ! in_node 2 test -e "/run/$probe" && [ ! -e "/run/$probe" ] &&
	in_node 2 test -d /run/sshd && [ -f "$TMP/shared.$probe" ] && in_node 3 test -f "$TMP/shared.$probe" &&
	in_node 1 grep -q " /run .* - tmpfs $_cl_tag-node1 " /proc/self/mountinfo &&
	! grep -q "$_cl_tag" /proc/self/mountinfo
check $? "/run is private to each node (a file in node1's is in neither node2's nor the machine's; its tmpfs is not mounted in the machine's namespace), \$TMP is shared" \
	"node1: $(in_node 1 ls /run | tr '\n' ' '); node2: $(in_node 2 ls /run | tr '\n' ' '); the machine's mounts: $(grep "$_cl_tag" /proc/self/mountinfo)"

# 7: node_procs.
# (in_node, a function, runs in a subshell when in the background: the
# sleep says its own pid)
# shellcheck disable=SC2016
in_node 1 sh -c 'echo $$ >"$1"; exec sleep 300' sh "$TMP/np1" </dev/null >/dev/null 2>&1 &
# shellcheck disable=SC2016
in_head sh -c 'echo $$ >"$1"; exec sleep 300' sh "$TMP/hp" </dev/null >/dev/null 2>&1 &
wait_file "$TMP/np1" 5
wait_file "$TMP/hp" 5
# (pids in a node are its own: node_global gives the machine's)
np1=$(node_global 1 "$(cat "$TMP/np1")")
hp=$(cat "$TMP/hp")
procs=$(node_procs 1)
l1=$(node_global 1 "$(cat "$CLUSTER_DIR/node1/sshd.pid")")
h1=$(readlink "/proc/$NODE_PID_1/ns/net")
bad=
for p in $procs; do
	[ "$(readlink "/proc/$p/ns/net" 2>/dev/null)" = "$h1" ] || bad="$bad $p"
done
echo "$procs" | grep -qx "$l1" && echo "$procs" | grep -qx "$np1" && [ "$(node_pid 1)" = "$NODE_PID_1" ] &&
	! echo "$procs" | grep -qx "$NODE_PID_1" && ! echo "$procs" | grep -qx "$$" && [ -z "$bad" ]
check $? "node_procs 1: node1's sshd listener and a process started in node1, not its holder nor the test" \
	"node_procs 1: $(echo "$procs" | tr '\n' ' '); listener $l1, sleep $np1, holder $NODE_PID_1; not in node1:$bad"

# 8, 9: a cut link.
node_cut 2
t=$(ms)
o2=$(ssh_node 2 -o ConnectTimeout=2 </dev/null 2>&1)
rc=$?
t=$(($(ms) - t))
o1=$(ssh_node 1 </dev/null 2>&1)
[ $rc -ne 0 ] && [ "$o2" != node2 ] && [ $t -lt 4000 ] && [ "$o1" = node1 ]
check $? "node_cut 2: ssh to node2 fails within its ConnectTimeout (2 s) while node1 still answers" \
	"node2: status $rc in $t ms: $o2; node1: $o1"
node_heal 2
t=$(ms)
i=0
while [ $i -lt 10 ]; do
	o2=$(ssh_node 2 -o ConnectTimeout=2 </dev/null 2>&1)
	[ "$o2" = node2 ] && break
	i=$((i + 1))
	sleep 0.2
done
t=$(($(ms) - t))
[ "$o2" = node2 ]
check $? "node_heal 2: node2 answers again" "after $t ms: $o2"

# 10, 11: a killed sshd.
node_command 3 '/bin/hostname; exec sleep 300'
# (not ssh_node in the background: $! would be a subshell's pid, not ssh's)
nsenter -t "$HEAD_PID" -n ssh -F "$CLUSTER_SSH_CONFIG" node3 </dev/null >"$TMP/long.out" 2>&1 &
lp=$!
i=0
while [ $i -lt 100 ] && ! grep -qx node3 "$TMP/long.out"; do sleep 0.1; i=$((i + 1)); done
sleeper=$(comm_in "$(node_procs 3)" sleep)
node_command 3 "$CLUSTER_NODE_CMD"
node_sshd_kill 3
krc=$?
i=0
while [ $i -lt 50 ] && running "$lp"; do sleep 0.1; i=$((i + 1)); done
running "$lp" && kill -KILL "$lp"
wait "$lp"
lrc=$?
t=$(ms)
o3=$(ssh_node 3 -o ConnectTimeout=2 </dev/null 2>&1)
rc=$?
t=$(($(ms) - t))
left=$(comm_in "$(node_procs 3)" sshd)
[ $krc -eq 0 ] && grep -qx node3 "$TMP/long.out" && [ $lrc -eq 255 ] && [ $rc -ne 0 ] &&
	[ "$o3" != node3 ] && [ $t -lt 1500 ] && [ -z "$left" ] && [ -n "$sleeper" ] && running "$sleeper"
check $? "node_sshd_kill 3: a running session breaks (ssh exits 255), no sshd is left in node3, a new ssh is refused; what the session ran lives on" \
	"node_sshd_kill: $krc; the session: status $lrc, said: $(tr '\n' ' ' <"$TMP/long.out"); new ssh: status $rc in $t ms: $o3; sshd left: $left; sleep: $sleeper"
node_sshd_start 3
src=$?
o3=$(ssh_node 3 </dev/null 2>&1)
[ $src -eq 0 ] && [ "$o3" = node3 ]
check $? "node_sshd_start 3: node3 answers again" "node_sshd_start: $src; ssh: $o3"

# 12, 13: down.
links=$(readlink "/proc/$HEAD_PID/ns/net")
for k in 1 2 3 4; do
	links="$links $(readlink "/proc/$(node_pid "$k")/ns/net")"
done
node_runs=
for k in 1 2 3 4; do node_runs="$node_runs
$(in_node "$k" ls -A /run)"; done
before=
for l in $links; do before="$before $(in_ns "$l" | tr '\n' ' ')"; done
wd=$(cat "$CLUSTER_DIR/watchdog.pid")
holders="$HEAD_PID $NODE_PID_1 $NODE_PID_2 $NODE_PID_3 $NODE_PID_4"
cluster_down
drc=$?
after=$(for l in $links; do in_ns "$l"; done | tr '\n' ' ')
nsleft=
for l in $links; do
	lsns -n -t net -o NS | grep -qx " *$(echo "$l" | tr -dc 0-9)" && nsleft="$nsleft $l"
done
alive=
for p in $holders $wd $np1 $hp $sleeper; do running "$p" && alive="$alive $p"; done
[ $drc -eq 0 ] && [ "$(echo "$before" | wc -w)" -ge 12 ] && [ -z "$after" ] && [ -z "$nsleft" ] &&
	[ -z "$alive" ] && [ -n "$sleeper" ]
check $? "cluster_down: no process is left in the cluster's namespaces (the holders, sshd, sessions' leftovers and the test's own processes in them all gone), nor the watchdog" \
	"status $drc; before:$before; after:$after; namespaces left:$nsleft; still running:$alive"
run_after=$(ls -A /run)
new=$(printf '%s\n' "$run_after" | grep -vxF -e "$run_before")
ours=
for e in $new; do
	printf '%s\n' "$node_runs" | grep -qxF -e "$e" && ours="$ours $e"
done
t=$(ms)
cluster_down
drc=$?
t=$(($(ms) - t))
mounts=$(grep -l "$_cl_tag" /proc/[0-9]*/mountinfo 2>/dev/null)
[ -z "$ours" ] && [ ! -e "/run/$probe" ] && echo "$node_runs" | grep -qx "$probe" && [ -z "$mounts" ] &&
	[ $drc -eq 0 ] && [ $t -lt 500 ]
check $? "cluster_down: the machine's /run has no entry the nodes made, the tmpfs mounts went with the namespaces, and a second cluster_down is a no-op" \
	"new in /run:$ours (all new: $(echo "$new" | tr '\n' ' ')); the tmpfs still in: $mounts; second cluster_down: status $drc in $t ms"
done_testing
