# Shared by the shell tests: TAP output, temp dir, the binary, traces.
# Sourced; expects BF_BUILD, BF_TOP and BF_TRACES from tests/run.sh.
set -u
n=0
BFD="$BF_BUILD/backfilld"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() {	# ok CONDITION-EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

# json_num FILE KEY: a top-level number from the replay's JSON report.
json_num() {
	sed -n "s/^ *\"$2\": *\([-0-9.e]*\),*\$/\1/p" "$1" | head -1
}

have_trace() { [ -f "$BF_TRACES/$1" ]; }
done_testing() { echo "1..$n"; }
