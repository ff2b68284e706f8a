/* The SWF's workflow fields: 17, the preceding job (the number of an
 * earlier job of the workload that must end before this one is
 * submitted), and 18, the think time (seconds between that end and this
 * submission). -1 means none in both.
 *
 * Resolving field 17 is pure arithmetic over a trace's job numbers, so it
 * lives here; what a replay does with the result is replay.c's business.
 * A job number may appear on several lines (some logs have duplicates):
 * field 17 names the latest line before this one that has it, since that
 * is the job that ran before this one in the log. A number that no earlier
 * line has (a forward reference, the job itself, an unknown number) names
 * no job. Only earlier lines can be named, so the predecessors never form
 * a cycle. */
#ifndef BF_PRECEDING_H
#define BF_PRECEDING_H
#include <stddef.h>
#include <stdint.h>

/* What field 17 of line i names, in pred[i]: */
#define PRECEDING_NONE    UINT32_MAX		/* field 17 <= 0: no predecessor */
#define PRECEDING_UNKNOWN (UINT32_MAX - 1)	/* no earlier line has the number */

/* For n lines in file order with their job numbers (field 1) in num and
 * their preceding job numbers (field 17) in want, set pred[i] to the index
 * of the latest line j < i with num[j] == want[i], or to PRECEDING_NONE or
 * PRECEDING_UNKNOWN. n must be below PRECEDING_UNKNOWN. Returns 0, or -1
 * when memory ran out (pred is then unset). O(n log n). */
int preceding_resolve(const int64_t *num, const int64_t *want, size_t n, uint32_t *pred);

#endif
