#!/bin/sh
# Print the project's own small sample trace (SWF) on standard output.
# Synthetic and deterministic: the numbers come from a fixed-seed
# Park-Miller generator (state * 16807 mod 2^31-1; every product stays below
# 2^53, so any awk's doubles compute it exactly), not from awk's rand(), and
# only integer arithmetic is used, so the output is the same everywhere.
#
# 300 jobs on a 64-node machine:
#   submit     non-decreasing; gaps of 0-600 s, the product of two uniform
#              draws (many short gaps, few long ones; mean about 150 s)
#   size       1, 2, 4, 8, 16, 32 or 64 nodes (small ones most often);
#              fields 5 and 8 both hold it
#   runtime    10 s to 2 h (short jobs most often)
#   estimate   field 9: 1.5-5x the runtime, but about 5% of jobs below it
#              (the replay kills those at their estimate) and two jobs -1
#   user       1-10; status 1; wait and every other field -1
# Usage: sh mk/sample-trace.sh > sample.swf
set -eu
LC_ALL=C
export LC_ALL

awk 'BEGIN {
	seed = 20240601
	M = 2147483647
	print "; backfilld sample trace (synthetic, deterministic)"
	print "; MaxNodes: 64"
	print "; MaxProcs: 64"
	t = 0
	for (job = 1; job <= 300; job++) {
		t += int(draw(601) * draw(601) / 600)

		r = draw(100)
		if (r < 35) size = 1
		else if (r < 55) size = 2
		else if (r < 70) size = 4
		else if (r < 82) size = 8
		else if (r < 91) size = 16
		else if (r < 97) size = 32
		else size = 64

		r = draw(100)
		if (r < 40) run = 10 + draw(291)		# 10 s - 5 min
		else if (r < 70) run = 300 + draw(901)		# 5 - 20 min
		else if (r < 90) run = 1200 + draw(2401)	# 20 min - 1 h
		else run = 3600 + draw(3601)			# 1 - 2 h

		if (draw(100) < 5)
			est = int(run * (50 + draw(45)) / 100)	# too short: killed
		else
			est = int(run * (150 + draw(351)) / 100)	# 1.5x - 5x
		if (job == 77 || job == 211)
			est = -1				# no estimate

		user = 1 + draw(10)
		printf "%d %d -1 %d %d -1 -1 %d %d -1 1 %d -1 -1 -1 -1 -1 -1\n",
		    job, t, run, size, size, est, user
	}
}

# A uniform integer in 0 .. n-1.
function draw(n) {
	seed = (seed * 16807) % M
	return seed % n
}'
