# Schedules unchanged: every replay in schedules.list gives, job for job,
# the schedule recorded with the code before the conservative speed work
# (issue 11). A digest that differs means the scheduler decides
# differently, not only faster: find the first differing job with
# --jobs-out against a build of the recorded commit.
. "$BF_TOP/tests/lib.sh"

list="$BF_TOP/tests/replay/schedules.list"
while read -r t rest; do
	case "$t" in ''|'#'*) continue ;; esac
	opts=${rest% = *}
	want=${rest##* = }
	# Under the sanitizers (BACKFILLD_TEST_QUICK) only the shipped traces:
	# the same code, checked for memory errors, on less work.
	if [ -n "${BACKFILLD_TEST_QUICK:-}" ] && [ ! -f "${BF_OWN_TRACES:-$BF_TOP/traces}/$t.swf.gz" ]; then
		skip_check "$t $opts: the same schedule" "quick run (sanitizers): the shipped traces only"
		continue
	fi
	if ! have_trace "$t.swf.gz"; then
		skip_check "$t $opts: the same schedule" "$t.swf.gz is not here (the large traces are in ../shared/traces)"
		continue
	fi
	# shellcheck disable=SC2086
	"$BFD" --replay "$(trace "$t.swf.gz")" $opts --jobs-out "$TMP/o.swf" >/dev/null 2>"$TMP/err"
	got=$(sha256sum <"$TMP/o.swf" | cut -c1-64)
	[ "$got" = "$want" ]
	ok $? "$t $opts: the same schedule as recorded"
	[ -s "$TMP/err" ] && sed 's/^/# /' "$TMP/err"
done <"$list"
done_testing
