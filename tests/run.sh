#!/bin/sh
# Run every test (unit binaries under BUILD/tests, scripts under tests/*/),
# count TAP "ok"/"not ok" lines, and close with "N passed, N failed".
# A test program that exits non-zero without a failed line counts as one failure.
# Usage: tests/run.sh BUILD
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
export BF_BUILD="$top/$build" BF_TOP="$top" BF_TRACES="$top/../shared/traces"
pass=0 fail=0 todo=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_one() {
	name=$1; shift
	"$@" >"$log" 2>&1
	rc=$?
	p=$(grep -c '^ok ' "$log")
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
		if [ "$td" -eq 0 ]; then
			echo "ok   $name ($p passed)"
		else
			echo "ok   $name ($p passed, $td todo)"
			grep -A12 '^not ok .*# TODO' "$log" | sed 's/^/    /' | head -14
		fi
	fi
}

for t in "$top/$build"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "$(basename "$t")" "$t"
done
for t in "$top"/tests/replay/*.sh "$top"/tests/daemon/*.sh; do
	[ -f "$t" ] || continue
	run_one "$(basename "$(dirname "$t")")/$(basename "$t")" sh "$t"
done
if [ "$todo" -gt 0 ]; then
	echo "$todo known open (TAP TODO), not counted as passed or failed"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
