#!/bin/sh
# Cluster starts over ssh (execution: ssh), on a test cluster of 16 nodes,
# each its own namespaces with its own sshd (tests/cluster_lib.sh), the
# daemon in a head namespace:
#  - a 16-node job's spread: from the start the daemon records to the last
#    of the 16 nodes running the command the job's script sends there
#    with blaunch (each task writes the time it began);
#  - one-node jobs a second across the 16 nodes: 400 jobs of /bin/true
#    queued at once (all of them before the first starts: the daemon
#    is given the queue held, then released), from the first start to
#    the last end.
# Each figure is measured once with the ssh connections warm (a first
# 16-node job opens them) and printed; timing never fails the run.
# Needs root, namespaces and Debian's openssh-server; otherwise it says
# why and prints nothing else. Usage: sh bench/cluster.sh BUILD-DIR
set -u
BF_BUILD=$(cd "${1:-build}" && pwd)
BF_TOP=$(cd "$(dirname "$0")/.." && pwd)
export BF_BUILD BF_TOP
. "$BF_TOP/tests/lib.sh"
. "$BF_TOP/tests/cluster_lib.sh"
cd "$TMP" || exit 1
chmod 755 "$TMP"
N=16
JOBS=${BENCH_CLUSTER_JOBS:-400}
CLUSTER_NODE_CMD="$BF_BUILD/backfilld --node --cgroup none --blaunch $BF_BUILD/blaunch"
if ! cluster_up $N; then
	echo "cluster: skipped: $CLUSTER_SKIP"
	exit 0
fi
{ cluster_conf; cat <<EOF; } >cluster.yaml
nodes: $CLUSTER_NODELIST
policy: easy
node_timeout: 30s
max_queued_per_user: unlimited
EOF
START_WRAP=$CLUSTER_START_WRAP start_daemon --config "$TMP/cluster.yaml" || exit 1
export PATH="$BF_BUILD:$PATH"
jfield() { "$BQ" -l "$1" --json | tr ',' '\n' | sed -n "s/^\"$2\"://p" | head -1; }

cat >spread.sh <<'EOF'
#!/bin/sh
blaunch 'date +%s%N >'"$PWD"'/t.$(hostname)'
EOF
chmod 755 spread.sh
spread() {	# spread TAG: one 16-node job; its spread in ms
	rm -f t.*
	id=$("$BSUB" -n $N -t 1 -o /dev/null ./spread.sh | sed -n 's/^Job \([0-9]*\) .*/\1/p')
	wait_state "$id" "$ENDED" 60 >/dev/null
	start=$(jfield "$id" start_us)
	last=$(cat t.* 2>/dev/null | sort -n | tail -1)
	got=$(ls t.* 2>/dev/null | wc -l)
	awk -v s="$start" -v l="$last" -v g="$got" -v n=$N -v tag="$1" 'BEGIN {
		if (g < n) { printf "%s: only %d of %d nodes ran it\n", tag, g, n; exit }
		printf "%s: 16-node job: command running on all %d nodes %.0f ms after its start\n",
		       tag, n, (l / 1000 - s) / 1000 }'
}
spread "cold (first connections)"
spread "warm"
spread "warm"

# One-node jobs: queued behind a 16-node job that waits for the word, then
# all started as fast as the daemon and ssh can.
printf '#!/bin/sh\nwhile [ ! -f %s/go ]; do sleep 0.05; done\n' "$TMP" >block.sh
chmod 755 block.sh
"$BSUB" -n $N -t 5 -o /dev/null ./block.sh >/dev/null
i=0
while [ $i -lt "$JOBS" ]; do
	last=$("$BSUB" -n 1 -t 1 -o /dev/null /bin/true | sed -n 's/^Job \([0-9]*\) .*/\1/p')
	i=$((i + 1))
done
# The daemon's own CPU (user + system, in clock ticks) over the burst.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$DPID/stat"; }
c0=$(cpu_ticks)
touch go
# Waiting costs as little as it can (a listing of every job, ten times a
# second, took a third of a core from what is measured): the last job
# first, one job's state at a time; then every job, once a second.
wait_state "$last" "$ENDED" 120 >/dev/null
i=0
while [ $i -lt 120 ] && "$BQ" -a | grep -q 'queued\|running'; do sleep 1; i=$((i + 1)); done
c1=$(cpu_ticks)	# (with a second or so of idle listings: a few ms)
"$BQ" -d -a --json | tr '{' '\n' | grep '"nodes":1,' >ended.json
starts=$(sed -n 's/.*"start_us":\([0-9]*\).*/\1/p' ended.json | sort -n)
t0=$(echo "$starts" | head -1)
ts=$(echo "$starts" | tail -1)
t1=$(sed -n 's/.*"end_us":\([0-9]*\).*/\1/p' ended.json | sort -n | tail -1)
n1=$(echo "$starts" | grep -c .)
failed=$(grep -c '"state":"failed"' ended.json)
hz=$(getconf CLK_TCK)
awk -v a="$t0" -v s="$ts" -v b="$t1" -v n="$n1" -v f="$failed" -v c=$((c1 - c0)) -v hz="$hz" 'BEGIN {
	printf "one-node jobs across 16 nodes: %d started in %.2f s (%.0f starts/s), all ended %.2f s after the first start (%.0f jobs/s); %d failed\n",
	       n, (s - a) / 1e6, (n - 1) / ((s - a) / 1e6), (b - a) / 1e6, n / ((b - a) / 1e6), f
	printf "  CPU of the daemon itself over them: %.2f s (%.1f ms a job; the rest is ssh, sshd and the node sides)\n",
	       c / hz, c / hz * 1000 / n }'
cancel_all
stop_daemon
