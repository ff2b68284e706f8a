# Live equals replay: a small trace through the live daemon with real
# processes, and through --replay; the same start order and the same start
# times within a stated tolerance, under EASY and conservative.
#
# Time scale: one trace second is 0.1 s live (0.25 s under the sanitizers).
# The trace's events (submits and ends) are at least 3 trace seconds apart
# under both policies, and every job that ends by itself does so at least 4
# trace seconds before its kill instant, so the live run's overheads (fork,
# exec, process exit, a client's round trip: milliseconds, tens of them
# under ASan) cannot reorder them or kill a job the replay does not. The
# test checks both premises on the replays. Tolerance: 2.5 trace seconds
# on every start (against the replay's start, or the job's live submission
# if that came later: the test's client may submit late on a busy machine). The daemon runs with --kill-grace 0, as the replay does
# (a simulated job dies at once).
. "$BF_TOP/tests/lib.sh"
. "$BF_TOP/tests/live_replay_lib.sh"

cd "$TMP" || exit 1
# Under the sanitizers (make asan sets BACKFILLD_TEST_QUICK) a fork, an exec
# and a round trip take tens of milliseconds, and a chain of starts, each
# waiting for the one before to end, adds them up: slow the clock down.
if [ -n "${BACKFILLD_TEST_QUICK:-}" ]; then live_replay 0.25; else live_replay 0.1; fi
done_testing
