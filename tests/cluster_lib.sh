# shellcheck shell=sh disable=SC2034
# (SC2034: the CLUSTER_* variables are for the tests that source this.)
# A private test cluster for the cluster tests: a head and N nodes, each in
# its own namespaces, the nodes running Debian's OpenSSH sshd, all of it
# reachable only from the test's own namespaces and gone afterwards.
# Sourced after tests/lib.sh (it uses $TMP), in the test's main shell:
#
#	. "$BF_TOP/tests/lib.sh"
#	. "$BF_TOP/tests/cluster_lib.sh"
#	CLUSTER_NODE_CMD="$BF_BUILD/backfilld --node --cgroup none"
#	if cluster_up 4; then ...; else skip_check "..." "$CLUSTER_SKIP"; fi
#
# Sourcing it sets `trap cluster_cleanup EXIT` (cluster_down, then lib.sh's
# cleanup_daemon), and makes HUP, INT and TERM exit through it. A test that
# needs more at exit sets its own trap and calls cluster_cleanup first in
# it: trap 'cluster_cleanup; my_cleanup' EXIT. (cleanup_daemon removes $TMP,
# so cluster_down, which reads $TMP/cluster, must come before it.)
#
# cluster_up N (1 <= N <= 200) builds:
#   head   a network + UTS namespace (hostname head) held by a sleeping
#          holder, $HEAD_PID: lo up, and a bridge ($CLUSTER_BRIDGE, a name
#          unique to this test) with 10.88.0.1/24. The daemon runs there:
#          START_WRAP=$CLUSTER_START_WRAP start_daemon ... ("nsenter -t
#          $HEAD_PID -n", which execs, so $DPID stays the daemon's pid).
#   nodeK  (K = 1..N; $CLUSTER_NODES "node1 node2 ...", $CLUSTER_NODELIST
#          "node[1-N]") a network + UTS + mount + PID namespace (private
#          propagation; its own /proc, so a pid inside is the node's own
#          and a node sees only its own processes, as a machine would),
#          hostname nodeK, held by $NODE_PID_K (node_pid K):
#          a tmpfs on /run (so /run/sshd and all of /run is per node; the
#          rest of the file system, /tmp and $TMP included, is shared, as
#          homes are on a cluster); /etc/hosts bound to one that adds
#          every node's name and address (as a cluster's DNS would: MPICH's
#          proxies call back to the first node by its name); lo up;
#          eth0 10.88.0.(10+K)/24, whose
#          peer vethK is on the head's bridge; one sshd listening on
#          10.88.0.(10+K):22 only, configured by $TMP/cluster/nodeK/
#          sshd_config, logging to $TMP/cluster/nodeK/sshd.log.
#   keys   the daemon's key $CLUSTER_KEY ($TMP/cluster/id_ed25519, no
#          passphrase); each node's authorized_keys lets it in as root with
#          one forced command: $CLUSTER_NODE_CMD_K if set, else
#          $CLUSTER_NODE_CMD (default /bin/hostname), every %n replaced by
#          the node's name (node_command K CMD changes it later). What the
#          client asked to run is in the command's $SSH_ORIGINAL_COMMAND.
#          sshd runs it with root's shell (bash -c CMD); its SetEnv
#          SHLVL=1 keeps bash from reading root's ~/.bashrc, as it does for
#          sshd otherwise (on Debian): the machine's dotfiles neither slow
#          each login down nor write into the channel.
#   ssh    $CLUSTER_SSH_CONFIG ($TMP/cluster/ssh_config): Host nodeK for
#          each node (its address, HostKeyAlias nodeK, User root, strict
#          checking against $TMP/cluster/known_hosts, IdentityFile
#          $CLUSTER_KEY only, BatchMode, no tty, ConnectTimeout 5, and
#          KexAlgorithms curve25519-sha256: OpenSSH 9's default,
#          sntrup761x25519, doubles the cost of a login on a small VM,
#          300 ms instead of 150). An option given on the command line
#          (ssh_node K -o ConnectTimeout=2 ...) wins over these.
# It returns 0 once every sshd answers (10 s at most), else 1 with
# $CLUSTER_SKIP set to a one-line reason (not root, a tool missing,
# namespaces or veth pairs not permitted, an sshd that did not come up),
# having taken down what it had built.
#
# in_head CMD...        CMD in the head's network namespace
# in_node K CMD...      CMD in node K's network, UTS and mount namespaces
#                       (in the same directory, unless that is under /run)
# ssh_node K [SSH-OPTION...] [CMD...]
#                       ssh -F $CLUSTER_SSH_CONFIG nodeK ..., from the head
# (These are functions: run in the background, one is a subshell, and $!
# its pid, not the command's. For a command's own pid: nsenter -t
# $HEAD_PID -n CMD & or, in a node, in_node K sh -c 'echo $$ >F; exec CMD' &.)
# node_pid K            node K's holder pid
# node_command K CMD    node K's forced command from now on (%n: nodeK)
# node_cut K, node_heal K
#                       cut node K's link (the head's end, vethK, down) or
#                       restore it
# node_sshd_kill K      SIGKILL to node K's sshd (the listener, by its pid
#                       file, and every sshd process in the node: the
#                       sessions, whose connections break); what the
#                       sessions ran lives on
# node_sshd_start K     start it again; waits until it answers
# node_procs K          the pids in node K's network namespace, holder aside
#                       (the machine's pids)
# node_global K PID     the machine's pid of node K's process PID
# cluster_conf          backfilld.yaml lines for a daemon using the cluster
# cluster_down          stop everything in the cluster's namespaces (TERM,
#                       2 s, then KILL), then the holders; the namespaces,
#                       their mounts and links go with them. Idempotent.
#                       It removes only its own pid files in $TMP/cluster
#                       (the logs and keys stay for cleanup_daemon).
#
# All of it lives in namespaces that the test made: cluster_down stops only
# processes found in them (and the watchdog below), never the machine's.
# If the test shell dies without its EXIT trap (SIGKILL), a watchdog
# process started by cluster_up notices within a second, takes the cluster
# down and removes $TMP.
# Everything here is POSIX sh; the names of internal helpers and variables
# begin with _cl_ (the tests' own n and i are left alone).

CLUSTER_DIR=$TMP/cluster
CLUSTER_KEY=$CLUSTER_DIR/id_ed25519
CLUSTER_SSH_CONFIG=$CLUSTER_DIR/ssh_config
CLUSTER_BRIDGE=bfbr$$
CLUSTER_NODES=
CLUSTER_NODELIST=
CLUSTER_SKIP=
CLUSTER_START_WRAP=
HEAD_PID=
_cl_net=10.88.0
_cl_tag=bfcluster-$$

_cl_addr() { echo "$_cl_net.$((10 + $1))"; }
_cl_say() { echo "# cluster: $*" >&2; }
# _cl_knum K: K names a node of the cluster that is up.
_cl_knum() {
	case ${1:-} in
	'' | *[!0-9]*) _cl_say "not a node number: '${1:-}'"; return 1 ;;
	esac
	[ -f "$CLUSTER_DIR/node$1/holder.pid" ] && return 0
	_cl_say "no node$1 (cluster_up first)"
	return 1
}
# _cl_stime PID: the process's start time, if it runs (a zombie does not).
_cl_stime() {
	read -r _cl_l 2>/dev/null <"/proc/$1/stat" || return 0
	# shellcheck disable=SC2086
	set -- ${_cl_l##*) }
	case $1 in Z | X | x) return 0 ;; esac
	echo "${20}"
}
# _cl_subst STRING FROM TO: every FROM in STRING replaced by TO.
_cl_subst() {
	_cl_s=$1 _cl_o=
	while :; do
		case $_cl_s in
		*"$2"*) _cl_o=$_cl_o${_cl_s%%"$2"*}$3; _cl_s=${_cl_s#*"$2"} ;;
		*) break ;;
		esac
	done
	printf '%s' "$_cl_o$_cl_s"
}

in_head() {
	[ -n "$HEAD_PID" ] || { _cl_say "no head (cluster_up first)"; return 1; }
	nsenter -t "$HEAD_PID" -n "$@"
}
node_pid() {
	_cl_knum "$1" || return 1
	eval "echo \"\${NODE_PID_$1:-}\""
}
in_node() {
	_cl_knum "$1" || return 1
	eval "_cl_p=\${NODE_PID_$1:-}"
	_cl_p=${_cl_p:-}
	shift
	# nsenter -m starts in the namespace's root directory; the paths are
	# the machine's but for /run.
	case $PWD in
	/run | /run/*) nsenter -t "$_cl_p" -n -u -m -p "$@" ;;
	*) nsenter -t "$_cl_p" -n -u -m -p --wd="$PWD" "$@" ;;
	esac
}
ssh_node() {
	_cl_knum "$1" || return 1
	_cl_k=$1
	shift
	in_head ssh -F "$CLUSTER_SSH_CONFIG" "node$_cl_k" "$@"
}
node_cut() { _cl_knum "$1" && in_head ip link set "veth$1" down; }
node_heal() { _cl_knum "$1" && in_head ip link set "veth$1" up; }

# node_command K CMD: node K's authorized_keys, one line, written anew
# (sshd reads it at each login). In the option's quotes only \" is an
# escape, so doubling nothing but the quotes keeps any CMD as it is.
node_command() {
	_cl_knum "$1" || return 1
	case $2 in *'
'*) _cl_say "node_command: a newline in the command"; return 1 ;; esac
	_cl_c=$(_cl_subst "$2" %n "node$1")
	_cl_c=$(_cl_subst "$_cl_c" '"' '\"')
	read -r _cl_kt _cl_kk _cl_kc <"$CLUSTER_KEY.pub" || return 1
	printf 'restrict,command="%s" %s %s\n' "$_cl_c" "$_cl_kt" "$_cl_kk" \
		>"$CLUSTER_DIR/node$1/authorized_keys.new" &&
		mv -f "$CLUSTER_DIR/node$1/authorized_keys.new" "$CLUSTER_DIR/node$1/authorized_keys"
}

# ---- the namespaces' processes ----

# _cl_ns_pids LINK: the pids whose network namespace is LINK (net:[INUM]);
# zombies have none.
_cl_ns_pids() {
	find /proc/[0-9]*/ns/net -maxdepth 0 -lname "$(echo "$1" | tr '[]' '??')" 2>/dev/null |
		cut -d/ -f3
}
# _cl_members DIR: the pids in the namespace recorded in DIR (a node's or
# the head's), its holder included. While the holder runs, the namespace
# is surely ours (a namespace's number is reused only once it is gone);
# without it, a process counts only if it sees our tag: the head's
# bridge, or the node's /run.
_cl_members() {
	read -r _cl_ml 2>/dev/null <"$1/net" || return 0
	read -r _cl_mh 2>/dev/null <"$1/holder.pid" || _cl_mh=
	if [ -n "$_cl_mh" ] && [ "$(readlink "/proc/$_cl_mh/ns/net" 2>/dev/null)" = "$_cl_ml" ]; then
		_cl_ns_pids "$_cl_ml"
		return 0
	fi
	for _cl_mp in $(_cl_ns_pids "$_cl_ml"); do
		case ${1##*/} in
		head) grep -q "^ *$CLUSTER_BRIDGE:" "/proc/$_cl_mp/net/dev" 2>/dev/null ;;
		*) grep -qF -- "- tmpfs $_cl_tag-${1##*/} " "/proc/$_cl_mp/mountinfo" 2>/dev/null ;;
		esac && echo "$_cl_mp"
	done
}
# _cl_others: every pid in the cluster's namespaces but the holders.
_cl_others() {
	for _cl_od in "$CLUSTER_DIR"/node* "$CLUSTER_DIR"/head; do
		[ -f "$_cl_od/holder.pid" ] || continue
		read -r _cl_oh <"$_cl_od/holder.pid"
		_cl_members "$_cl_od" | grep -vx "$_cl_oh"
	done
	return 0
}
# cluster_conf: the lines of a backfilld.yaml that send a daemon's jobs to
# this cluster (execution: ssh, the key, the ssh configuration and known
# hosts, control sockets under $TMP/ctl); the test adds its own keys.
cluster_conf() {
	cat <<_CL_EOF
execution: ssh
ssh_config: $CLUSTER_SSH_CONFIG
ssh_key: $CLUSTER_KEY
ssh_known_hosts: $CLUSTER_DIR/known_hosts
ssh_control_dir: $TMP/ctl
_CL_EOF
}
# node_global K PID: the machine's pid of the process that is PID in node
# K's own pid namespace (what $$ or a pid file there says), or nothing.
node_global() {
	for _cl_g in $(node_procs "$1"); do
		_cl_ns=$(sed -n 's/^NSpid:.*[[:space:]]\([0-9]*\)$/\1/p' "/proc/$_cl_g/status" 2>/dev/null)
		[ "$_cl_ns" = "$2" ] && echo "$_cl_g" && return 0
	done
	return 0
}
node_procs() {
	_cl_knum "$1" || return 1
	read -r _cl_nh <"$CLUSTER_DIR/node$1/holder.pid"
	read -r _cl_no 2>/dev/null <"$CLUSTER_DIR/node$1/outer.pid" || _cl_no=$_cl_nh
	_cl_members "$CLUSTER_DIR/node$1" | grep -vx -e "$_cl_nh" -e "$_cl_no"
	return 0
}

# ---- sshd ----

# _cl_sshd_wait K DEADLINE: until node K's sshd has written its pid file
# (it does once it listens) and shows its host key from the head; the
# status says whether it did before the deadline (in seconds since 1970).
_cl_sshd_wait() {
	_cl_wd=$CLUSTER_DIR/node$1
	read -r _cl_wt _cl_wk _cl_wc <"$_cl_wd/ssh_host_ed25519_key.pub" || return 1
	while :; do
		if [ -s "$_cl_wd/sshd.pid" ] &&
			in_head ssh-keyscan -T 1 -t ed25519 "$(_cl_addr "$1")" 2>/dev/null | grep -qF "$_cl_wk"; then
			return 0
		fi
		[ "$(date +%s)" -lt "$2" ] || return 1
		sleep 0.05
	done
}
# _cl_sshd_run K: start node K's sshd (it daemonizes itself).
_cl_sshd_run() {
	rm -f "$CLUSTER_DIR/node$1/sshd.pid"
	in_node "$1" /usr/sbin/sshd -f "$CLUSTER_DIR/node$1/sshd_config" \
		-E "$CLUSTER_DIR/node$1/sshd.log" </dev/null >"$CLUSTER_DIR/node$1/sshd.out" 2>&1
}
node_sshd_start() {
	_cl_knum "$1" || return 1
	# (a second one could not listen, and would take the pid file)
	if read -r _cl_sl 2>/dev/null <"$CLUSTER_DIR/node$1/sshd.pid" &&
		[ -n "$(node_global "$1" "$_cl_sl")" ]; then
		_cl_say "node$1: sshd already runs ($_cl_sl)"
		return 0
	fi
	_cl_sshd_run "$1" && _cl_sshd_wait "$1" $(($(date +%s) + 10))
}
# _cl_sshd_pids K: node K's sshd processes: the listener (its pid file) and
# all the node's processes named sshd* (sessions; sshd-session and
# sshd-auth in later OpenSSH).
_cl_sshd_pids() {
	_cl_sp=
	_cl_all=$(node_procs "$1")
	read -r _cl_sl 2>/dev/null <"$CLUSTER_DIR/node$1/sshd.pid" || _cl_sl=
	[ -n "$_cl_sl" ] && _cl_sl=$(node_global "$1" "$_cl_sl")	# (the node's pid)
	for _cl_q in $_cl_all; do
		_cl_c=
		read -r _cl_c 2>/dev/null <"/proc/$_cl_q/comm"
		case $_cl_c in sshd*) _cl_sp="$_cl_sp $_cl_q"; continue ;; esac
		[ "$_cl_q" = "$_cl_sl" ] && _cl_sp="$_cl_sp $_cl_q"
	done
	echo "$_cl_sp"
}
node_sshd_kill() {
	_cl_knum "$1" || return 1
	_cl_r=0
	while :; do
		_cl_ps=$(_cl_sshd_pids "$1")
		[ -z "$_cl_ps" ] && break
		if [ $_cl_r -ge 100 ]; then
			_cl_say "node$1: sshd processes that would not die:$_cl_ps"
			return 1
		fi
		# shellcheck disable=SC2086
		kill -KILL $_cl_ps 2>/dev/null
		sleep 0.05
		_cl_r=$((_cl_r + 1))
	done
	rm -f "$CLUSTER_DIR/node$1/sshd.pid"
}

# ---- up and down ----

# _cl_holder DIR NAME TMPFS-SOURCE UNSHARE-OPTION...: a holder process
# that makes the namespaces, names its host NAME, mounts a tmpfs named
# TMPFS-SOURCE on /run (if not empty), then sleeps; DIR/holder.pid and
# DIR/net (its network namespace) once it is ready.
_cl_holder() {
	_cl_hd=$1 _cl_hn=$2 _cl_hs=$3
	shift 3
	mkdir -p "$_cl_hd" || return 1
	rm -f "$_cl_hd/ready"
	# shellcheck disable=SC2016
	unshare "$@" sh -c '
		hostname "$1" || exit 1
		if [ -n "$2" ]; then
			mount -t tmpfs -o mode=755,size=64m "$2" /run || exit 1
			mkdir -m 755 /run/sshd || exit 1
		fi
		: >"$3" || exit 1
		exec sleep infinity </dev/null >/dev/null 2>&1' sh "$_cl_hn" "$_cl_hs" "$_cl_hd/ready" \
		</dev/null >/dev/null 2>"$_cl_hd/holder.err" &
	_cl_hp=$!
	echo "$_cl_hp" >"$_cl_hd/holder.pid"
	_cl_r=0
	while [ ! -e "$_cl_hd/ready" ]; do
		if [ -z "$(_cl_stime "$_cl_hp")" ] || [ $_cl_r -ge 100 ]; then
			CLUSTER_SKIP="namespaces not permitted: $(head -1 "$_cl_hd/holder.err" 2>/dev/null)"
			return 1
		fi
		sleep 0.05
		_cl_r=$((_cl_r + 1))
	done
	# With a pid namespace (--fork), unshare waits outside it for the
	# holder, its child and the namespace's pid 1: that child is the one
	# to enter (nsenter -p), and unshare itself is kept apart.
	case " $* " in
	*" --pid "*)
		_cl_hc=$(cat "/proc/$_cl_hp/task/$_cl_hp/children" 2>/dev/null)	# (no newline)
		echo "$_cl_hp" >"$_cl_hd/outer.pid"
		_cl_hp=${_cl_hc%% *}
		echo "$_cl_hp" >"$_cl_hd/holder.pid"
		;;
	esac
	readlink "/proc/$_cl_hp/ns/net" >"$_cl_hd/net"
}

# _cl_watchdog PID: once the test's shell (PID) is gone without having
# taken the cluster down, take it down and remove $TMP (as the shell's EXIT
# trap would have).
_cl_watchdog() {
	_cl_in_watchdog=1
	_cl_ws=
	trap '[ -n "$_cl_ws" ] && kill "$_cl_ws" 2>/dev/null; exit 0' TERM
	trap '' HUP INT
	_cl_st=$(_cl_stime "$1")
	while [ "$(_cl_stime "$1")" = "$_cl_st" ]; do
		sleep 1 &
		_cl_ws=$!
		wait "$_cl_ws"
	done
	cluster_down
	rm -rf "$TMP"
}

cluster_up() {
	CLUSTER_SKIP=
	case ${1:-} in
	'' | *[!0-9]*) CLUSTER_SKIP="cluster_up: not a number of nodes: '${1:-}'"; return 1 ;;
	esac
	if [ "$1" -lt 1 ] || [ "$1" -gt 200 ]; then
		CLUSTER_SKIP="cluster_up: from 1 to 200 nodes, not $1"
		return 1
	fi
	if [ -f "$CLUSTER_DIR/head/holder.pid" ]; then
		CLUSTER_SKIP="cluster_up: the cluster is already up"
		return 1
	fi
	if [ "$(id -u)" -ne 0 ]; then
		CLUSTER_SKIP="not root: cannot make namespaces, links and mounts"
		return 1
	fi
	for _cl_t in unshare nsenter ip ssh ssh-keygen ssh-keyscan hostname mount find readlink; do
		command -v "$_cl_t" >/dev/null 2>&1 && continue
		CLUSTER_SKIP="$_cl_t is missing (mk/deps.sh --tests installs it)"
		return 1
	done
	if [ ! -x /usr/sbin/sshd ]; then
		CLUSTER_SKIP="/usr/sbin/sshd is missing (openssh-server; mk/deps.sh --tests installs it)"
		return 1
	fi
	mkdir -p "$CLUSTER_DIR" || { CLUSTER_SKIP="cannot make $CLUSTER_DIR"; return 1; }
	_cl_watchdog "$$" </dev/null >/dev/null 2>&1 &
	echo $! >"$CLUSTER_DIR/watchdog.pid"
	if ! _cl_build "$1"; then
		[ -n "$CLUSTER_SKIP" ] || CLUSTER_SKIP="cluster_up failed"
		_cl_why=$CLUSTER_SKIP
		cluster_down
		CLUSTER_SKIP=$_cl_why
		return 1
	fi
	return 0
}

_cl_build() {
	_cl_e=$CLUSTER_DIR/build.err
	rm -f "$CLUSTER_KEY" "$CLUSTER_KEY.pub"
	if ! ssh-keygen -q -t ed25519 -N '' -C bf-cluster -f "$CLUSTER_KEY" </dev/null >"$_cl_e" 2>&1; then
		CLUSTER_SKIP="ssh-keygen failed: $(head -1 "$_cl_e")"
		return 1
	fi
	# The head.
	_cl_holder "$CLUSTER_DIR/head" head '' --net --uts || return 1
	read -r HEAD_PID <"$CLUSTER_DIR/head/holder.pid"
	CLUSTER_START_WRAP="nsenter -t $HEAD_PID -n"
	if ! in_head ip -batch - >"$_cl_e" 2>&1 <<EOF; then
link set lo up
link add $CLUSTER_BRIDGE type bridge
addr add $_cl_net.1/24 dev $CLUSTER_BRIDGE
link set $CLUSTER_BRIDGE up
EOF
		CLUSTER_SKIP="cannot make the head's bridge: $(head -1 "$_cl_e")"
		return 1
	fi
	: >"$CLUSTER_DIR/known_hosts"
	: >"$CLUSTER_SSH_CONFIG"
	CLUSTER_NODES=
	CLUSTER_NODELIST="node[1-$1]"
	[ "$1" -eq 1 ] && CLUSTER_NODELIST=node1
	# The nodes' /etc/hosts: the machine's, and every node's name.
	{
		cat /etc/hosts 2>/dev/null
		_cl_k=1
		while [ $_cl_k -le "$1" ]; do
			echo "$(_cl_addr $_cl_k) node$_cl_k"
			_cl_k=$((_cl_k + 1))
		done
	} >"$CLUSTER_DIR/hosts"
	chmod 644 "$CLUSTER_DIR/hosts"	# every job's user reads it, whatever the umask
	_cl_k=1
	while [ $_cl_k -le "$1" ]; do
		_cl_d=$CLUSTER_DIR/node$_cl_k
		_cl_a=$(_cl_addr $_cl_k)
		CLUSTER_NODES="${CLUSTER_NODES:+$CLUSTER_NODES }node$_cl_k"
		_cl_holder "$_cl_d" "node$_cl_k" "$_cl_tag-node$_cl_k" \
			--net --uts --mount --propagation private --pid --fork --mount-proc || return 1
		read -r _cl_hp <"$_cl_d/holder.pid"
		eval "NODE_PID_$_cl_k=\$_cl_hp"
		# Its link: the head's end on the bridge, the node's end eth0.
		if ! in_head ip link add "veth$_cl_k" type veth peer name eth0 netns "$_cl_hp" >"$_cl_e" 2>&1 ||
			! in_head ip link set "veth$_cl_k" master "$CLUSTER_BRIDGE" up >"$_cl_e" 2>&1; then
			CLUSTER_SKIP="veth pairs not permitted: $(head -1 "$_cl_e")"
			return 1
		fi
		if ! in_node $_cl_k ip -batch - >"$_cl_e" 2>&1 <<EOF; then
link set lo up
addr add $_cl_a/24 dev eth0
link set eth0 up
EOF
			CLUSTER_SKIP="cannot set node$_cl_k's address: $(head -1 "$_cl_e")"
			return 1
		fi
		if ! in_node $_cl_k mount --bind "$CLUSTER_DIR/hosts" /etc/hosts >"$_cl_e" 2>&1; then
			CLUSTER_SKIP="cannot give node$_cl_k its /etc/hosts: $(head -1 "$_cl_e")"
			return 1
		fi
		# Its sshd, host key, authorized key; the client's side of it.
		rm -f "$_cl_d/ssh_host_ed25519_key" "$_cl_d/ssh_host_ed25519_key.pub"
		if ! ssh-keygen -q -t ed25519 -N '' -C "node$_cl_k" -f "$_cl_d/ssh_host_ed25519_key" \
			</dev/null >"$_cl_e" 2>&1; then
			CLUSTER_SKIP="ssh-keygen failed: $(head -1 "$_cl_e")"
			return 1
		fi
		cat >"$_cl_d/sshd_config" <<EOF
ListenAddress $_cl_a
HostKey "$_cl_d/ssh_host_ed25519_key"
PidFile "$_cl_d/sshd.pid"
AuthorizedKeysFile "$_cl_d/authorized_keys"
PermitRootLogin forced-commands-only
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxSessions 1000
MaxStartups 1000
LogLevel VERBOSE
SetEnv SHLVL=1
EOF
		eval "_cl_c=\${CLUSTER_NODE_CMD_$_cl_k:-\${CLUSTER_NODE_CMD:-/bin/hostname}}"
		node_command $_cl_k "$_cl_c" || { CLUSTER_SKIP="cannot write node$_cl_k's authorized_keys"; return 1; }
		read -r _cl_t _cl_hk _cl_c <"$_cl_d/ssh_host_ed25519_key.pub"
		echo "node$_cl_k $_cl_t $_cl_hk" >>"$CLUSTER_DIR/known_hosts"
		cat >>"$CLUSTER_SSH_CONFIG" <<EOF
Host node$_cl_k
	HostName $_cl_a
	HostKeyAlias node$_cl_k
	User root
	UserKnownHostsFile "$CLUSTER_DIR/known_hosts"
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	CheckHostIP no
	IdentityFile "$CLUSTER_KEY"
	IdentitiesOnly yes
	IdentityAgent none
	BatchMode yes
	RequestTTY no
	ConnectTimeout 5
	KexAlgorithms curve25519-sha256
EOF
		_cl_k=$((_cl_k + 1))
	done
	# Every sshd at once, then wait for each.
	_cl_k=1
	while [ $_cl_k -le "$1" ]; do
		if ! _cl_sshd_run $_cl_k; then
			CLUSTER_SKIP="sshd did not start on node$_cl_k: $(cat "$CLUSTER_DIR/node$_cl_k/sshd.out" \
				"$CLUSTER_DIR/node$_cl_k/sshd.log" 2>/dev/null | tail -1)"
			return 1
		fi
		_cl_k=$((_cl_k + 1))
	done
	_cl_dl=$(($(date +%s) + 10))
	_cl_k=1
	while [ $_cl_k -le "$1" ]; do
		if ! _cl_sshd_wait $_cl_k "$_cl_dl"; then
			CLUSTER_SKIP="sshd did not come up on node$_cl_k in 10 s: $(tail -1 \
				"$CLUSTER_DIR/node$_cl_k/sshd.log" 2>/dev/null)"
			return 1
		fi
		_cl_k=$((_cl_k + 1))
	done
	return 0
}

cluster_down() {
	# The watchdog (unless this is it).
	if [ -z "${_cl_in_watchdog:-}" ] && read -r _cl_w 2>/dev/null <"$CLUSTER_DIR/watchdog.pid"; then
		kill -TERM "$_cl_w" 2>/dev/null
		_cl_r=0
		while [ -n "$(_cl_stime "$_cl_w")" ] && [ $_cl_r -lt 20 ]; do sleep 0.1; _cl_r=$((_cl_r + 1)); done
		[ -z "$(_cl_stime "$_cl_w")" ] && wait "$_cl_w" 2>/dev/null
		rm -f "$CLUSTER_DIR/watchdog.pid"
	fi
	[ -f "$CLUSTER_DIR/head/holder.pid" ] || ls "$CLUSTER_DIR"/node*/holder.pid >/dev/null 2>&1 ||
		return 0
	# Everything in the namespaces but the holders: TERM, up to 2 s to go,
	# then KILL (again, for what forked meanwhile) for up to 5 s more.
	_cl_r=0
	while :; do
		_cl_ps=$(_cl_others)
		[ -z "$_cl_ps" ] && break
		if [ $_cl_r -eq 0 ]; then
			# shellcheck disable=SC2086
			kill -TERM $_cl_ps 2>/dev/null
		elif [ $_cl_r -ge 70 ]; then
			_cl_say "cluster_down: could not stop" "$_cl_ps"
			break
		elif [ $_cl_r -ge 20 ]; then
			# shellcheck disable=SC2086
			kill -KILL $_cl_ps 2>/dev/null
		fi
		sleep 0.1
		_cl_r=$((_cl_r + 1))
	done
	# Then the holders (the test's children: reaped here), and with the
	# last process of each namespace its links and mounts go.
	for _cl_d in "$CLUSTER_DIR"/node* "$CLUSTER_DIR"/head; do
		[ -f "$_cl_d/holder.pid" ] || continue
		read -r _cl_h <"$_cl_d/holder.pid"
		_cl_members "$_cl_d" | grep -qx "$_cl_h" && kill -KILL "$_cl_h" 2>/dev/null
		_cl_r=0
		while [ -n "$(_cl_members "$_cl_d")" ] && [ $_cl_r -lt 50 ]; do
			sleep 0.05
			_cl_r=$((_cl_r + 1))
		done
		# (never a wait for a holder that still runs: it would not end)
		[ -z "$(_cl_stime "$_cl_h")" ] && wait "$_cl_h" 2>/dev/null
		rm -f "$_cl_d/holder.pid"
	done
	HEAD_PID=
	CLUSTER_START_WRAP=
	return 0
}

cluster_cleanup() {
	cluster_down
	cleanup_daemon
}
trap cluster_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
