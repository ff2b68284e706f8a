# Crash torture, short: the daemon killed -9 a few times under a storm of
# clients (tests/torture/torture.c; `make torture` is the long run). One TAP
# line per invariant, the evidence of each violation in '#' lines, and the
# seed to repeat the run. Settings: TORTURE_CHECK_CRASHES (default 8),
# TORTURE_SEED, TORTURE_POLICY (default conservative).
set -u
bin="$BF_BUILD/tests/bf_torture"
if [ ! -x "$bin" ]; then
	echo "not ok 1 - $bin is built (make all builds it)"
	echo "1..1"
	exit 0
fi
# Quick (asan) runs: fewer crashes, the same invariants.
crashes=${TORTURE_CHECK_CRASHES:-8}
[ -n "${BACKFILLD_TEST_QUICK:-}" ] && crashes=3
BF_BUILD="$BF_BUILD" TORTURE_TAP=1 TORTURE_CRASHES="$crashes" \
	TORTURE_POLICY="${TORTURE_POLICY:-conservative}" TORTURE_SEED="${TORTURE_SEED:-}" "$bin"
rc=$?
# 1: violations (reported as "not ok" lines); 2: the harness could not run
# (reported as "not ok" too). Anything else is a crash of the harness.
[ $rc -le 2 ] || echo "not ok - the torture harness exited with status $rc"
exit 0
