/* The metrics the scheduling literature uses, accumulated job by job.
 * All inputs are in microseconds; results are in seconds.
 *   wait w = start - submit, runtime r, response w + r,
 *   bounded slowdown max((w + r) / max(r, 10 s), 1),
 *   utilization = node-seconds used / (nodes * (last end - first submit)). */
#ifndef BF_METRICS_H
#define BF_METRICS_H
#include <stdbool.h>
#include <stdint.h>
#include "bf_time.h"

#define METRICS_BSLD_THRESHOLD (10 * BF_SEC)

struct metrics {
	uint64_t jobs, killed, backfilled;
	double sum_wait, max_wait, sum_response, sum_bsld;
	double node_seconds;		/* used */
	bf_time first_submit, last_end;	/* BF_NEVER / -BF_NEVER while empty */
};

/* Derived figures, in seconds (0 when there are no jobs). */
struct metrics_summary {
	uint64_t jobs, killed, backfilled;
	double makespan;		/* last end - first submit */
	double utilization;		/* 0..1 */
	double avg_wait, max_wait, avg_response, avg_bsld;
};

void metrics_init(struct metrics *m);
void metrics_add(struct metrics *m, bf_time submit, bf_time start, bf_time end,
                 uint32_t nodes, bool killed, bool backfilled);
void metrics_summarize(const struct metrics *m, uint32_t nodes, struct metrics_summary *out);
double metrics_bounded_slowdown(bf_time wait, bf_time run);

#endif
