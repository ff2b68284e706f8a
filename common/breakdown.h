/* What a replay's jobs say beyond the averages (SCHEDULING.md, "Metrics"):
 * medians and 90th/99th percentiles, breakdowns by month of submission, by
 * runtime class and by size class, batch-means confidence intervals, and
 * utilization and queue length over time. Pure: no I/O, no clock. */
#ifndef BF_BREAKDOWN_H
#define BF_BREAKDOWN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"
#include "stats.h"

/* One job as simulated, in arrival order. */
struct replay_job {
	bf_time submit, start, run, estimate;	/* run: cut at the kill limit */
	bf_time logged_run;			/* field 4 as logged, before any cut: the
						 * work the job offered */
	uint32_t size, line;			/* line: index in the trace */
	bool killed, backfilled;
};
struct replay_jobs {
	struct replay_job *j;
	size_t n;
};

struct bd_opts {
	uint32_t batch;		/* jobs per batch; 0: jobs / 32, at least 10 */
	uint32_t warmup;	/* batches dropped first; default 1 */
};

struct bd_dist {
	double avg, median, p90, p99;	/* NaN for an empty group */
};

struct bd_group {
	char label[24];
	uint64_t jobs, killed, backfilled;
	double load;	/* a month: its offered load, the logged node-seconds of
			 * its jobs / (nodes * its length within the span of
			 * submissions; NaN if that is 0); a class: its share,
			 * its node-seconds / (nodes * the replay's span) */
	struct bd_dist wait, response, bsld;
};

enum { BD_RUNTIME_CLASSES = 5, BD_SIZE_CLASSES = 7 };

struct breakdown {
	struct bd_group all;
	struct bd_group runtime[BD_RUNTIME_CLASSES];	/* < 30 s, 5 min, 1 h, 10 h, longer */
	struct bd_group size[BD_SIZE_CLASSES];		/* 1, 2-4, 5-16, ... powers of 4 */
	struct bd_group *month;				/* by month of submission */
	size_t nmonth;
	bool calendar;		/* months of the calendar (UTC); else 30-day periods */
	uint32_t batch, warmup;	/* as used */
	struct stats_bm ci_wait, ci_response, ci_bsld;	/* batches in order of completion */
};

/* The month (or 30-day period) of a job's submission: an index from the
 * trace's first month, and its label. */
size_t bd_month_of(bf_time submit, int64_t unix_start, bf_time first_submit);
/* Where month idx begins and ends ([from, to), trace time). */
void   bd_month_bounds(size_t idx, int64_t unix_start, bf_time first_submit, bf_time *from,
                       bf_time *to);
void   bd_month_label(size_t idx, int64_t unix_start, bf_time first_submit, char *buf, size_t len);
int    bd_runtime_class(bf_time run);
int    bd_size_class(uint32_t size);
extern const char *const bd_runtime_labels[BD_RUNTIME_CLASSES];
extern const char *const bd_size_labels[BD_SIZE_CLASSES];

/* NULL on out of memory. unix_start: the trace's UnixStartTime, -1 if unknown. */
struct breakdown *bd_compute(const struct replay_jobs *jobs, uint32_t nodes, int64_t unix_start,
                             const struct bd_opts *o);
void bd_free(struct breakdown *bd);

/* Utilization (0..1) and average queue length in `bins` equal slices of
 * [first submit, last end). Returns 0, or -1 (no jobs, or memory). */
int bd_timeline(const struct replay_jobs *jobs, uint32_t nodes, size_t bins, double *util,
                double *queue, bf_time *t0, bf_time *width);

#endif
