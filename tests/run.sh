#!/bin/sh
# Run every test (unit binaries under BUILD/tests, scripts under tests/*/),
# count TAP "ok"/"not ok" lines, and close with "N passed, N failed".
# A test program that exits non-zero without a failed line counts as one failure.
# Usage: tests/run.sh BUILD
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
# BF_TRACES: the large real traces (../shared/traces beside the checkout;
# tests that need one that is absent count as skipped, saying why).
# BF_OWN_TRACES: the two small ones the project ships (traces/).
export BF_BUILD="$top/$build" BF_TOP="$top" BF_TRACES="${BF_TRACES:-$top/../shared/traces}"
export BF_OWN_TRACES="$top/traces"
pass=0 fail=0 todo=0 skip=0
skips=$(mktemp)
log=$(mktemp)
trap 'rm -f "$log" "$skips"' EXIT

run_one() {
	name=$1; shift
	"$@" >"$log" 2>&1
	rc=$?
	# A skipped check ("ok ... # SKIP why") is counted apart, with its reason.
	sk=$(grep -c '^ok .*# SKIP' "$log")
	p=$(( $(grep -c '^ok ' "$log") - sk ))
	skip=$((skip + sk))
	grep '^ok .*# SKIP' "$log" | sed "s|^ok [0-9]* - |$name: |" >>"$skips"
	# A known, documented open failure is a TAP TODO: counted apart.
	td=$(grep -c '^not ok .*# TODO' "$log")
	f=$(( $(grep -c '^not ok ' "$log") - td ))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name exited with status $rc" >>"$log"
	fi
	pass=$((pass + p)); fail=$((fail + f)); todo=$((todo + td))
	if [ "$f" -ne 0 ]; then
		echo "FAIL $name ($p passed, $f failed)"
		sed 's/^/    /' "$log" | grep -v '^    ok ' | tail -40
	else
		more=
		[ "$sk" -gt 0 ] && more=", $sk skipped"
		if [ "$td" -eq 0 ]; then
			echo "ok   $name ($p passed$more)"
		else
			echo "ok   $name ($p passed$more, $td todo)"
			grep -A12 '^not ok .*# TODO' "$log" | sed 's/^/    /' | head -14
		fi
	fi
}

for t in "$top/$build"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "$(basename "$t")" "$t"
done
for t in "$top"/tests/replay/*.sh "$top"/tests/daemon/*.sh "$top"/tests/layout/*.sh; do
	[ -f "$t" ] || continue
	run_one "$(basename "$(dirname "$t")")/$(basename "$t")" sh "$t"
done
if [ "$skip" -gt 0 ]; then
	echo "$skip skipped:"
	sed 's/^/    /' "$skips" | head -40
fi
if [ "$todo" -gt 0 ]; then
	echo "$todo known open (TAP TODO), not counted as passed or failed"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
