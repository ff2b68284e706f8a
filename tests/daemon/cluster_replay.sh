# Live equals replay on a cluster: the trace of tests/daemon/live_replay.sh
# through a daemon that runs each job on its nodes over ssh (execution:
# ssh, 8 test nodes of tests/cluster_lib.sh), against --replay, under EASY
# and conservative: the same start order, every start within the same
# tolerance. A start and an end on the nodes cost a few ssh round trips
# more than at home, so the clock is slower than live_replay.sh's: one
# trace second is 0.3 s live (0.5 s under the sanitizers).
. "$BF_TOP/tests/lib.sh"
. "$BF_TOP/tests/cluster_lib.sh"
. "$BF_TOP/tests/live_replay_lib.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP"
CLUSTER_NODE_CMD="$BF_BUILD/backfilld --node --cgroup none --blaunch $BF_BUILD/blaunch"
if ! cluster_up 8; then
	for p in easy conservative; do
		for c in "the trace replays" "premises" "margin" "jobs ran" "killed" "no other killed" \
			"start order" "start times"; do
			skip_check "$p: $c" "$CLUSTER_SKIP"
		done
	done
	skip_check "the trace tells the policies apart" "$CLUSTER_SKIP"
	done_testing
	exit 0
fi
{ cluster_conf; echo "node_timeout: 30s"; } >cluster.yaml
START_WRAP=$CLUSTER_START_WRAP
LR_NODES=$CLUSTER_NODELIST
if [ -n "${BACKFILLD_TEST_QUICK:-}" ]; then
	live_replay 0.5 --config "$TMP/cluster.yaml"
else
	live_replay 0.3 --config "$TMP/cluster.yaml"
fi
done_testing
