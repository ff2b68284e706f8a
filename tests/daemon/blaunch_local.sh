#!/bin/sh
# blaunch(1) in local mode (no BSUB_LAUNCHER: the daemon runs every job on
# its own host and the node names are labels): a 3-node job of a 4-node
# daemon runs blaunch in each of its forms, and what each printed and
# returned is checked here; Open MPI's mpirun uses it as its remote shell.
# Then, outside any job, blaunch's refusal there, and a signal passed on
# to the tasks. (The cluster mode, against a fake node side, is
# tests/unit/test_blaunch.c.)
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1

start_daemon --nodes 4 --kill-grace 1 || exit 1

# The job: each blaunch's output in NAME.out, its status in NAME.rc.
cat >job.sh <<'EOF'
#!/bin/sh
PATH=$1:$PATH
echo "$BSUB_NODES" >nodes.txt
run() {	# run NAME BLAUNCH-ARGS...
	name=$1
	shift
	blaunch "$@" >"$name.out" 2>&1
	echo $? >"$name.rc"
}
run all 'echo $BLAUNCH_NODE'
run z -z "node003 node001" 'echo $BLAUNCH_NODE'
run rsh node002 echo rsh '$BLAUNCH_NODE'
run ssh -n -x -q -T node003 echo '$BLAUNCH_NODE'
run bad -z "node001 node004" touch ran.bad
run three node002 'exit 3'
run first 'case $BLAUNCH_NODE in node001) exit 0;; node002) exit 4;; *) exit 5;; esac'
run killed node001 'kill -9 $$'
printf 'line one\nline two\n' | run stdin node003 'cat; echo "on $BLAUNCH_NODE"'
echo piped | run several -z "node001 node002" 'cat; echo "end of $BLAUNCH_NODE"'
run join node001 'A=b; export A; sh -c "echo A is \$A"'
run noshell -no-shell node001 printf '%s|' 'a  b' '$HOME' '*'
run notfound node001 no-such-command-here
run notfound2 --no-shell node001 no-such-command-here
run nocmd -z node002
# Open MPI: its daemons (orted), all on this host, would share one session
# directory under /tmp and may race making it (1 run in 15 failed so):
# each gets its own TMPDIR, named in the command its launch agent runs,
# where the shell that blaunch gives that command expands $BLAUNCH_NODE.
if command -v mpirun >/dev/null; then
	hosts=$(echo $BSUB_NODES | tr ' ' ,)
	for node in $BSUB_NODES; do mkdir -p "$PWD/mpitmp.$node"; done
	OMPI_MCA_plm_rsh_agent=blaunch OMPI_MCA_orte_launch_agent="env TMPDIR=$PWD/mpitmp.\$BLAUNCH_NODE orted" \
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		timeout 60 mpirun --host "$hosts" -np 3 sh -c 'echo "rank $OMPI_COMM_WORLD_RANK on $BLAUNCH_NODE"' \
		>mpi.out 2>&1
	echo $? >mpi.rc
fi
EOF

"$BSUB" -n 3 -t 2:00 -o job.out job.sh "$BF_BUILD" >/dev/null
wait_state 1 done 90
ok $? "a 3-node job that runs blaunch in its forms ends done"
[ "$(cat nodes.txt)" = "node001 node002 node003" ]
ok $? "its nodes: node001 to node003 of the daemon's 4 ($(cat nodes.txt))"

# rc NAME: the status that blaunch in the job returned.
rc() { cat "$1.rc" 2>/dev/null || echo none; }

[ "$(rc all)" = 0 ] && [ "$(sort all.out | tr '\n' ' ')" = "node001 node002 node003 " ]
ok $? "blaunch 'echo \$BLAUNCH_NODE': every node of the job, each once ($(tr '\n' ' ' <all.out))"
[ "$(rc z)" = 0 ] && [ "$(sort z.out | tr '\n' ' ')" = "node001 node003 " ]
ok $? "-z \"node003 node001\": those two only ($(tr '\n' ' ' <z.out))"
[ "$(rc rsh)" = 0 ] && [ "$(cat rsh.out)" = "rsh node002" ]
ok $? "blaunch node002 echo rsh '\$BLAUNCH_NODE': the remote-shell form, node002 alone ($(cat rsh.out))"
[ "$(rc ssh)" = 0 ] && [ "$(cat ssh.out)" = "node003" ]
ok $? "ssh's flags -n -x -q -T before the node: accepted ($(cat ssh.out))"
[ "$(rc bad)" = 255 ] && [ ! -e ran.bad ] &&
	[ "$(cat bad.out)" = "blaunch: node node004 is not one of job 1's nodes (node001 node002 node003)" ]
ok $? "a node not the job's: refused before running anything, 255 ($(cat bad.out))"
[ "$(rc three)" = 3 ]
ok $? "a task that exits 3: blaunch exits 3 ($(rc three))"
[ "$(rc first)" = 4 ]
ok $? "three tasks exiting 0, 4, 5: the first non-zero in node order, 4 ($(rc first))"
[ "$(rc killed)" = 137 ]
ok $? "a task killed by SIGKILL: 128+9 ($(rc killed))"
[ "$(rc stdin)" = 0 ] && [ "$(cat stdin.out)" = "$(printf 'line one\nline two\non node003')" ]
ok $? "standard input reaches the one target ($(tr '\n' '|' <stdin.out))"
[ "$(rc several)" = 0 ] && [ "$(sort several.out | tr '\n' '|')" = "end of node001|end of node002|" ]
ok $? "several targets: no input for them ($(tr '\n' '|' <several.out))"
[ "$(rc join)" = 0 ] && [ "$(cat join.out)" = "A is b" ]
ok $? "a command with shell syntax (A=b; export A; ...): its words joined and run by /bin/sh -c ($(cat join.out))"
[ "$(rc noshell)" = 0 ] && [ "$(cat noshell.out)" = 'a  b|$HOME|*|' ]
ok $? "-no-shell: the words as they are, no shell ($(cat noshell.out))"
[ "$(rc notfound)" = 127 ] && [ "$(rc notfound2)" = 127 ] &&
	grep -q "blaunch: node001: running no-such-command-here: No such file or directory" notfound2.out
ok $? "a command that cannot be run: 127, with or without the shell ($(tr '\n' '|' <notfound2.out))"
[ "$(rc nocmd)" = 255 ] && grep -q "^blaunch: no command to run" nocmd.out
ok $? "no command: 255 ($(head -1 nocmd.out))"
if [ -f mpi.rc ]; then
	[ "$(rc mpi)" = 0 ] && [ "$(grep '^rank' mpi.out | sort | tr '\n' '|')" = \
		"rank 0 on node001|rank 1 on node002|rank 2 on node003|" ]
	ok $? "Open MPI's mpirun with OMPI_MCA_plm_rsh_agent=blaunch: a rank on each node ($(tr '\n' '|' <mpi.out | cut -c1-300))"
else
	skip_check "Open MPI's mpirun over blaunch" "no mpirun (mk/deps.sh --tests installs openmpi-bin)"
fi

# Outside any job.
env -u BSUB_JOBID -u BSUB_LAUNCHER "$BF_BUILD/blaunch" true >out 2>&1
[ $? -eq 255 ] && grep -q "^blaunch: not inside a backfilld job (no BSUB_JOBID)" out
ok $? "outside a job: refused, 255 ($(cat out))"

# Signals are passed on to the tasks, and blaunch exits as they do. (The
# environment of a job, without the daemon: local mode is the same code.)
BSUB_JOBID=7 BSUB_NODES="a b" "$BF_BUILD/blaunch" \
	'trap "echo got TERM on \$BLAUNCH_NODE; exit 7" TERM; touch ready.$BLAUNCH_NODE; while :; do sleep 0.1; done' \
	>sig.out 2>&1 </dev/null &
bpid=$!
i=0
while [ $i -lt 100 ] && ! { [ -e ready.a ] && [ -e ready.b ]; }; do sleep 0.1; i=$((i + 1)); done
kill -TERM "$bpid"
wait "$bpid"
brc=$?
[ $brc -eq 7 ] && [ "$(sort sig.out | tr '\n' '|')" = "got TERM on a|got TERM on b|" ]
ok $? "SIGTERM to blaunch: passed on to both tasks, which exit 7: so does blaunch ($brc; $(tr '\n' '|' <sig.out))"
done_testing
