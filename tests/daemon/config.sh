# The configuration file (backfilld.yaml(5)) in the daemon: --check-config,
# refusing to start on an invalid file, flags over the file, the limits it
# sets, the admin group, SIGHUP (valid and invalid), a partition that grows,
# and one log line per job event.
. "$BF_TOP/tests/lib.sh"
cd "$TMP" || exit 1
printf '#!/bin/sh\nsleep "$1"\n' >s.sh

# guar ID: the guaranteed start bq -l shows (empty if none).
guar() {
	"$BQ" -l "$1" 2>/dev/null | sed -n 's/^Start: *\(.*\) at the latest (guaranteed)$/\1/p'
}

# ---- --check-config ----
cat >good.yaml <<'EOF'
nodes: 4
policy: conservative
kill_grace: 5s
EOF
"$BFD" --check-config good.yaml >out 2>err
[ $? -eq 0 ] && grep -q "good.yaml: valid" out && ! [ -s err ]
ok $? "--check-config: a valid file passes"
cat >bad.yaml <<'EOF'
nodes: [a1, a2, a1]
kill_grace: -5s
colour: blue
default_limit: 2:00
max_limit: 1:00
EOF
"$BFD" --check-config bad.yaml >out 2>err
rc=$?
[ $rc -eq 1 ] && grep -q "^bad.yaml:1:[0-9]*: .*a1" err && grep -q "^bad.yaml:2:[0-9]*: " err &&
	grep -q "^bad.yaml:3:[0-9]*: .*colour" err && grep -q "^bad.yaml:5:[0-9]*: .*max_limit" err
ok $? "--check-config: every error at once as FILE:LINE:COLUMN, exit 1 (rc $rc)"
"$BFD" --config bad.yaml --foreground --socket "$TMP/bad.sock" --db "$TMP/bad.db" \
	--spool "$TMP/badspool" >out 2>err
rc=$?
[ $rc -eq 1 ] && grep -q "^bad.yaml:3:" err && grep -q "not starting" err && ! [ -e "$TMP/bad.sock" ]
ok $? "the daemon refuses to start on an invalid file, with its errors (rc $rc)"
printf 'admin_group: no-such-group-here\ncolour: blue\n' >nogroup.yaml
"$BFD" --check-config nogroup.yaml >out 2>err
[ $? -eq 1 ] && grep -q "^nogroup.yaml:1:14: admin_group: no group named no-such-group-here" err &&
	grep -q "^nogroup.yaml:2:1: unknown key 'colour'" err && grep -q "2 errors" err
ok $? "an admin group that does not exist is an error, reported with the others"
printf 'nodes: 4\npolcy: easy\ncolour: blue\n' >typo.yaml
"$BFD" --check-config typo.yaml >out 2>err
[ $? -eq 1 ] && grep -qx "typo.yaml:2:1: unknown key 'polcy' (did you mean policy?)" err &&
	grep -qx "typo.yaml:3:1: unknown key 'colour'" err
ok $? "--check-config: a misspelled key suggests the nearest known one, a foreign one nothing"

# ---- flags win over the file; the file's limits ----
cat >c.yaml <<EOF
nodes: 4
policy: conservative
kill_grace: 5s
default_limit: 10s
max_limit: 10m
max_nodes: 3
max_queued_per_user: 2
admin_group: nogroup
log_level: info
EOF
start_daemon --config "$TMP/c.yaml" --policy easy
grep -q "listening on .*: 4 nodes, easy, kill grace 5 s" daemon.log
ok $? "the file's nodes and grace, and --policy over its policy"
"$BSUB" -n 1 s.sh 300 >out 2>&1 && "$BQ" -l 1 | grep -q "^Time limit: *0:00:10" &&
	grep -q "^Job 1 submitted: 1 node for 0:00:10, " out
ok $? "a job without -t gets default_limit, and bsub says so: $(cat out)"
"$BSUB" -n 1 -t 11m s.sh 1 >out 2>&1
[ $? -ne 0 ] && grep -q "max_limit" out
ok $? "a time limit over max_limit is refused: $(cat out)"
"$BSUB" -n 4 -t 1m s.sh 1 >out 2>&1
[ $? -ne 0 ] && grep -q "max_nodes" out
ok $? "more nodes than max_nodes is refused: $(cat out)"
"$BSUB" -n 3 -t 1m s.sh 300 >/dev/null	# 2: runs on the other 3 nodes
"$BSUB" -n 3 -t 1m s.sh 1 >/dev/null	# 3
"$BSUB" -n 3 -t 1m s.sh 1 >/dev/null	# 4
"$BSUB" -n 3 -t 1m s.sh 1 >out 2>&1
[ $? -ne 0 ] && grep -q "max_queued_per_user" out
ok $? "a third waiting job of one user is refused: $(cat out)"

# admin_group: nogroup. nobody (group nogroup) cancels root's job.
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
chmod 755 "$TMP"
$AS_NOBODY "$BKILL" 4 >out 2>&1
[ $? -eq 0 ] && wait_state 4 cancelled 5
ok $? "a member of admin_group cancels another user's job: $(cat out)"
grep -q "job 4: cancelled by nobody (uid 65534)" daemon.log
ok $? "the log says who cancelled it"
$AS_NOBODY "$BF_BUILD/bctl" status >out 2>&1 && grep -q "^configuration: *$TMP/c.yaml$" out
ok $? "a member of admin_group uses bctl status; the configuration in force is named whole"
$AS_NOBODY "$BF_BUILD/bctl" hold 3 >out 2>&1 && $AS_NOBODY "$BF_BUILD/bctl" release 3 >>out 2>&1 &&
	grep -q "^Job 3: held" out && grep -q "^Job 3: released" out
ok $? "and bctl hold and release on root's job"
"$BSUB" -n 3 -t 1m s.sh 1 >/dev/null	# 5
$AS_NOBODY "$BKILL" -u root 5 >out 2>&1 && [ "$(cat out)" = "Job 5: cancelled" ]
ok $? "and bkill -u root 5: $(cat out)"

# ---- SIGHUP ----
sed -i 's/^max_nodes: 3/max_nodes: 4/; s/^max_queued_per_user: 2/max_queued_per_user: 10/; s/^admin_group: nogroup//' c.yaml
kill -HUP "$DPID"
sleep 1
"$BSUB" -n 4 -t 1m s.sh 1 >out 2>&1
[ $? -eq 0 ] && grep -q "reload: .*c.yaml applied" daemon.log
ok $? "SIGHUP: a raised max_nodes takes effect: $(cat out)"
$AS_NOBODY "$BKILL" 3 >out 2>&1
[ $? -ne 0 ] && grep -q "not your job" out
ok $? "and the removed admin group no longer acts for others"
cp c.yaml c.good
printf 'max_nodes: lots\n' >>c.yaml
kill -HUP "$DPID"
sleep 1
grep -q "c.yaml:[0-9]*:[0-9]*: " daemon.log && grep -q "the running configuration stays" daemon.log
ok $? "SIGHUP with an invalid file: its errors are logged, the configuration stays"
"$BSUB" -n 4 -t 1m s.sh 1 >/dev/null 2>&1
ok $? "(max_nodes is still 4)"
cp c.good c.yaml
sed -i 's/^nodes: 4/nodes: 6/; s/^max_nodes: 4/max_nodes: 6/' c.yaml
kill -HUP "$DPID"
sleep 1
grep -q "reload: 2 nodes added: the partition is node\[001-006\] (6 nodes, was 4)" daemon.log
ok $? "SIGHUP: added nodes are in the partition"
"$BSUB" -n 6 -t 1m s.sh 1 >out 2>&1
ok $? "and a job as wide as the grown partition is taken: $(cat out)"
sed -i 's/^nodes: 6/nodes: 3/; s/^max_nodes: 6/max_nodes: 3/' c.yaml
kill -HUP "$DPID"
sleep 1
grep -q "reload: nodes: .*never loses nodes" daemon.log
ok $? "SIGHUP: a partition that would lose nodes stays as it is"
sed -i 's/^nodes: 3/nodes: 6/; s/^max_nodes: 3/max_nodes: 6/' c.yaml

# ---- one line per job event ----
wait_state 1 "killed" 30
grep -q "job 1: submitted by root (uid 0): 1 node, limit 0:00:10, started at " daemon.log &&
	grep -q "job 1: started on node" daemon.log &&
	grep -q "job 1: time limit reached: terminating it" daemon.log &&
	grep -q "job 1: ended: killed, killed by signal 15, ran 0:00:1" daemon.log
ok $? "the log has job 1's life: submitted, started, killed at its limit, ended"
ids=$("$BQ" -a --json | tr ',' '\n' | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
# shellcheck disable=SC2086
[ -n "$ids" ] && "$BKILL" $ids >/dev/null 2>&1
for id in $ids; do wait_state "$id" "$ENDED" 10; done
stop_daemon

# ---- a restart with more nodes keeps the database; fewer is refused ----
start_daemon --config "$TMP/c.yaml" --nodes 8
grep -q "the partition grew from node\[001-006\] (6 nodes) to node\[001-008\] (8 nodes)" daemon.log
ok $? "a restart with a grown partition keeps the database"
stop_daemon
"$BFD" --config "$TMP/c.yaml" --foreground --socket "$TMP/s.sock" --db "$TMP/state.db" \
	--spool "$TMP/spool" --nodes 5 >out 2>&1
[ $? -eq 1 ] && grep -q "are not in node\[001-005\]" out
ok $? "a partition with fewer nodes is another partition's database: $(cat out)"
rm -rf state.db* spool
start_daemon --nodes 999 && stop_daemon
start_daemon --nodes 1000
grep -q "the partition grew from node\[001-999\] (999 nodes) to node\[001-1000\] (1000 nodes)" daemon.log
ok $? "a count grows past 999: node1000 joins node001 to node999"
stop_daemon
# An older backfilld named a count of 1000 node0001 to node1000 (as many
# digits as the count): such a database keeps its names under a count.
rm -rf state.db* spool
start_daemon --nodes 'node[0001-1000]' && stop_daemon
start_daemon --nodes 1000 && stop_daemon
start_daemon --nodes 1200
grep -q "the database numbers its nodes with 4 digits, as an older backfilld did: kept" daemon.log &&
	grep -q "the partition grew from node\[0001-1000\] (1000 nodes) to node\[0001-1200\] (1200 nodes)" daemon.log
ok $? "an older database's count naming (node0001 to node1000) is kept, and grows with it"
stop_daemon
rm -rf state.db* spool
start_daemon --nodes b1,a1 && stop_daemon
start_daemon --nodes a1,b1
grep -q "the partition's nodes are listed in another order: a1,b1 (was b1,a1)" daemon.log
ok $? "the same nodes in another order: said as such, not as growth"
stop_daemon

# ---- a policy changed by SIGHUP: dropped guarantees are announced ----
rm -rf state.db* spool
printf 'nodes: 2\npolicy: conservative\nkill_grace: 5s\n' >p.yaml
start_daemon --config "$TMP/p.yaml"
"$BSUB" -n 2 -t 1m s.sh 300 >/dev/null	# 1: runs
"$BSUB" -n 2 -t 1m s.sh 1 >/dev/null	# 2: guaranteed, the head
"$BSUB" -n 2 -t 1m s.sh 1 >/dev/null	# 3: guaranteed behind 2
wait_state 1 running
"$BQ" -l 3 | grep -q "at the latest (guaranteed)"
ok $? "conservative: job 3 has a guarantee"
sed -i 's/conservative/easy/' p.yaml
kill -HUP "$DPID"
sleep 1
grep -q "job 3: guarantee broken: start moved later from [0-9]*-[0-9]*-[0-9]* [0-9:]* to none (the policy changed)" \
	daemon.log && ! grep -q "job 2: guarantee broken" daemon.log &&
	grep -q "the policy is now easy" daemon.log
ok $? "to easy: job 3's dropped guarantee is announced, the head's is kept"
"$BQ" -l 3 | grep -q "(predicted" && "$BQ" -l 2 | grep -q "(guaranteed)"
ok $? "bq shows job 3 predicted, job 2 guaranteed"
sed -i 's/easy/conservative/' p.yaml
kill -HUP "$DPID"
sleep 1
"$BQ" -l 3 | grep -q "(guaranteed)" && [ "$(grep -c "guarantee broken" daemon.log)" -eq 1 ]
ok $? "back to conservative: every job is guaranteed again, nothing more announced"
stop_daemon
sed -i 's/conservative/easy/' p.yaml
start_daemon --config "$TMP/p.yaml"
grep -q "the policy changes from conservative (the stored plan's) to easy" daemon.log &&
	[ "$(grep -c "job 3: guarantee broken: .* (the policy changed)" daemon.log)" -eq 2 ] &&
	"$BQ" -l 3 | grep -q "(predicted"
ok $? "a restart under another policy: the stored plan's guarantees it drops are announced too"

# ---- keep_ended: old ended jobs leave the store; ids are not reused ----
"$BKILL" 1 2 3 >/dev/null 2>&1
wait_state 1 "killed\|cancelled" 10
stop_daemon
rm -rf state.db* spool
printf 'nodes: 2\nkeep_ended: 2s\n' >k.yaml
start_daemon --config "$TMP/k.yaml"
"$BSUB" -n 1 -t 1m s.sh 0 >out && id=$(sed -n 's/^Job \([0-9]*\) .*/\1/p' out) &&
	wait_state "$id" done 10 && "$BQ" -l "$id" >/dev/null
ok $? "an ended job ($id) is listed at first"
i=0
while [ $i -lt 100 ] && "$BQ" -l "$id" >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
"$BQ" -l "$id" 2>&1 | grep -q "no job $id" && grep -q "removed 1 ended job older than keep_ended" daemon.log
ok $? "keep_ended: 2 s after its end it leaves the store, and the log says so"
"$BSUB" -n 1 -t 1m s.sh 0 | grep -q "^Job $((id + 1)) "
ok $? "the next job gets the next id, not a removed one"

# ---- max_running_per_user: a user's jobs beyond it wait, others go ahead ----
stop_daemon
rm -rf state.db* spool
printf 'nodes: 4\npolicy: conservative\nkill_grace: 2s\nmax_running_per_user: 1\n' >u.yaml
start_daemon --config "$TMP/u.yaml"
"$BSUB" -n 1 -t 5m s.sh 300 >/dev/null	# 1
"$BSUB" -n 1 -t 5m s.sh 300 >/dev/null	# 2
mkdir -p nb && chown nobody:nogroup nb
(cd nb && $AS_NOBODY "$BSUB" -n 1 -t 5m "$TMP/s.sh" 300 >/dev/null)	# 3
wait_state 1 running && wait_state 3 running && "$BQ" -l 2 | grep -q "^State: *queued"
ok $? "cap 1: root's second job waits on free nodes while nobody's job runs"
"$BQ" -l 2 | grep -q "^Pending reason: *over a user cap: its user runs 1 job, the most at once (max_running_per_user)$"
ok $? "its pending reason: over a user cap"
"$BQ" -l 2 | grep -q "at the latest (guaranteed)"
ok $? "and it has a guarantee that respects the cap"
"$BKILL" 1 >/dev/null && wait_state 2 running 10
ok $? "it starts when root's first job ends"
"$BSUB" -n 1 -t 5m s.sh 300 >/dev/null	# 4
sed -i 's/max_running_per_user: 1/max_running_per_user: 2/' u.yaml
kill -HUP "$DPID"
wait_state 4 running 10 && grep -q "reload: max_running_per_user 1 -> 2" daemon.log
ok $? "SIGHUP raising the cap to 2 starts root's next job"
sed -i 's/max_running_per_user: 2/max_running_per_user: 1/' u.yaml
kill -HUP "$DPID"
sleep 1
wait_state 2 running 1 && wait_state 4 running 1
ok $? "lowering it again stops no running job"

# ---- a restart with a longer kill grace moves no promise ----
"$BKILL" 2 3 4 >/dev/null 2>&1
wait_state 2 "killed\|cancelled" 10
stop_daemon
rm -rf state.db* spool
printf 'nodes: 2\npolicy: conservative\nkill_grace: 2s\n' >g.yaml
start_daemon --config "$TMP/g.yaml"
"$BSUB" -n 2 -t 1m s.sh 300 >/dev/null	# 1: runs
"$BSUB" -n 2 -t 1m s.sh 1 >/dev/null	# 2: at 1's hold end
"$BSUB" -n 2 -t 1m s.sh 1 >/dev/null	# 3: at 2's hold end
wait_state 1 running
g3=$(guar 3)
stop_daemon
sed -i 's/kill_grace: 2s/kill_grace: 30s/' g.yaml
lines=$(wc -l <daemon.log)
start_daemon --config "$TMP/g.yaml"
[ "$(guar 3)" = "$g3" ] && ! tail -n +"$((lines + 1))" daemon.log | grep -q "guarantee broken"
ok $? "restarted with kill_grace 30 s: job 3 keeps its promise ($g3), nothing broken"
"$BSUB" -n 2 -t 1m s.sh 1 >/dev/null	# 4: behind 3's hold (1 min + 2 s)
"$BSUB" -n 2 -t 1m s.sh 1 >/dev/null	# 5: behind 4's, with the new grace
g4=$(guar 4) && g5=$(guar 5)
[ $(( $(date -d "$g4" +%s) - $(date -d "$g3" +%s) )) -le 63 ] &&
	[ $(( $(date -d "$g5" +%s) - $(date -d "$g4" +%s) )) -ge 90 ]
ok $? "old jobs keep the old grace, new ones get the new ($g3, $g4, $g5)"
sed -i 's/kill_grace: 30s/kill_grace: 10s/' g.yaml
kill -HUP "$DPID"
wait_log "reload: kill_grace 0:00:30 -> 0:00:10, for jobs submitted from now on"
ok $? "SIGHUP: a changed kill_grace is logged"
"$BSUB" -n 2 -t 1m s.sh 1 >/dev/null	# 6: behind 5's hold (1 min + 30 s)
"$BSUB" -n 2 -t 1m s.sh 1 >/dev/null	# 7: behind 6's (1 min + 10 s)
g6=$(guar 6) && g7=$(guar 7)
d6=$(( $(date -d "$g6" +%s) - $(date -d "$g5" +%s) ))
d7=$(( $(date -d "$g7" +%s) - $(date -d "$g6" +%s) ))
[ "$d6" -ge 89 ] && [ "$d6" -le 91 ] && [ "$d7" -ge 69 ] && [ "$d7" -le 71 ]
ok $? "and jobs submitted after it hold their nodes for the new grace ($d6 s, $d7 s)"
cancel_all
stop_daemon

# ---- log_level: error keeps errors only; debug adds requests and passes ----
rm -rf state.db* spool
printf 'nodes: 2\nlog_level: error\n' >l.yaml
lines=$(wc -l <daemon.log)
start_daemon --config "$TMP/l.yaml"
"$BSUB" -n 1 -t 1m s.sh 0 >/dev/null && wait_state 1 done 10
new_lines() { tail -n +"$((lines + 1))" daemon.log; }
[ -z "$(new_lines)" ]
ok $? "log_level error: nothing of the start or of a job's life is logged"
printf 'colour: blue\n' >>l.yaml
kill -HUP "$DPID"
wait_log "backfilld: error: reload: .*l.yaml has 1 error; the running configuration stays" &&
	new_lines | grep -q "^backfilld: error: .*l.yaml:3:1: unknown key 'colour'"
ok $? "but a reload's errors are logged, as errors"
printf 'nodes: 2\nlog_level: debug\n' >l.yaml
kill -HUP "$DPID"
wait_log "reload: .*l.yaml applied" && "$BSUB" -n 1 -t 1m s.sh 0 >/dev/null &&
	wait_log "backfilld: debug: request: submit from uid 0" &&
	wait_log "backfilld: debug: pass: .* 1 started" && wait_log "job 2: submitted"
ok $? "log_level debug (by SIGHUP): requests and passes are logged, and the rest"
stop_daemon
done_testing
