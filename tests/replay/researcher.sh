# What a researcher reached for: --compare over seeds (paired by seed, a
# Student t interval across them), --utilization (the offered load of the
# scaled trace), the --seeds sweep's table, each month's own offered load
# in --breakdown, and how much a comparison's verdict depends on the batch
# size of its batch means. Small synthetic traces written here, the shipped
# KTH-SP2 trace, and CTC-SP2 when ../shared/traces has it.
. "$BF_TOP/tests/lib.sh"

K=$(trace KTH-SP2-1996-2.1-cln.swf.gz)	# shipped in traces/
cd "$TMP" || exit 1

# j FILE KEY: a top-level number of a JSON report.
j() { json_num "$1" "$2"; }
# near A B TOL: |A - B| <= TOL.
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && d >= -t) }'; }

# ---- --breakdown: each month's own offered load ---------------------------------
# 10 nodes from 2021-01-01T00:00Z. January: 10 nodes for 3.1 days of its 31
# (10%); February: 5 nodes for 11.2 days of its 28 (20%; the job is killed
# at its estimate, but the load offered is its logged run time); March, up
# to the last submission on the 31st (30 days): 10 nodes for 6 + 3 days
# (30%). The old figure, each month's share of the whole replay's
# node-seconds, would be 3.37%, 3.15% and 9.78%.
cat >months.swf <<'SWF'
; UnixStartTime: 1609459200
; MaxProcs: 10
1 0 -1 267840 10 -1 -1 10 300000 -1 1 1 1 1 1 1 -1 -1
2 2678400 -1 967680 5 -1 -1 5 500000 -1 1 1 1 1 1 1 -1 -1
3 5097600 -1 518400 10 -1 -1 10 600000 -1 1 1 1 1 1 1 -1 -1
4 7689600 -1 259200 10 -1 -1 10 300000 -1 1 1 1 1 1 1 -1 -1
SWF
"$BFD" --replay months.swf --breakdown >months.txt
[ "$(awk '/^2021-0[123] / { printf "%s %s ", $1, $3 }' months.txt)" = \
  "2021-01 10.00 2021-02 20.00 2021-03 30.00 " ]
ok $? "--breakdown: each month's own offered load (10, 20, 30 %), not its share of the whole"
"$BFD" --replay months.swf --format json >months.json
[ "$(grep -A2 '"class": "2021-' months.json | sed -n 's/.*"load": \(.*\),/\1/p' | tr '\n' ' ')" = \
  "0.100000 0.200000 0.300000 " ]
ok $? "by_month in JSON: the same loads"
grep -q '"killed": 1' months.json
ok $? "the February job is killed at its estimate, and its month's load is still its logged work"
# Without UnixStartTime: 30-day periods from the first submission. +0d:
# job 1 (2678400 node-s) over 30 days = 10.33%; +30d (days 30 to 60): jobs
# 2 and 3 (4838400 + 5184000) = 38.67%; +60d ends at the last submission,
# day 89: job 4 (2592000) over 29 days = 10.34%.
sed '/UnixStartTime/d' months.swf >periods.swf
"$BFD" --replay periods.swf --breakdown >periods.txt
[ "$(awk '/^\+[0-9]+d / { printf "%s %s ", $1, $3 }' periods.txt)" = \
  "+0d 10.33 +30d 38.67 +60d 10.34 " ]
ok $? "30-day periods without UnixStartTime: each its own offered load, the last up to the last submission"

done_testing
