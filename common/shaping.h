/* Workload shaping for what-if replays: more or less load, a window of
 * dates, some users left out, flurries removed. Applied to the jobs a
 * replay simulates (after the input rules), in this order: users, flurries,
 * window, load; each step's count goes into the report.
 *
 * Pure: no I/O, no clock. */
#ifndef BF_SHAPING_H
#define BF_SHAPING_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

#define SHAPE_MAX_USERS 64

/* A date bound: absolute (seconds since the epoch, needs the trace's
 * UnixStartTime) or relative (seconds from the trace's time 0). */
struct shape_when {
	bool set, absolute;
	int64_t sec;
};

struct shaping {
	double load;			/* offered load times this: inter-arrival
					 * times divided by it; 1 = as logged */
	double utilization;		/* > 0: the offered load to reach instead
					 * (offered.h); the replay works out the
					 * load factor, and load is 1 here */
	struct shape_when from, to;	/* jobs submitted in [from, to) */
	uint32_t exclude[SHAPE_MAX_USERS];	/* SWF user ids (field 12) */
	size_t nexclude;
	uint32_t flurry;		/* 0: off; else a user's jobs in any hour
					 * holding at least this many of theirs */
};

struct shaping_counts {
	uint64_t users_excluded;	/* jobs */
	uint64_t flurry_jobs, flurry_users;
	uint64_t before_window, after_window;
	int64_t window_from, window_to;	/* trace seconds; INT64_MIN/MAX: open */
};

/* "2026-01-31" or "2026-01-31T12:00[:00]" (UTC), or "+30d", "+12h", "+90m",
 * "+3600" (seconds; from the trace's time 0). 0, or -1 with err. */
int shape_when_parse(const char *s, struct shape_when *w, char *err, size_t errlen);

/* A job as shaping sees it. */
struct shape_job {
	bf_time submit;
	uint32_t user;		/* UINT32_MAX: unknown */
};

/* Keep the jobs that stay (keep[i] false for the others) and scale the
 * submit times of the kept ones (in place, rounded to whole seconds).
 * jobs are in arrival order. unix_start: the trace's UnixStartTime, -1 if
 * unknown. Returns 0, or -1 with err (an absolute date without a
 * UnixStartTime; out of memory). */
int shape_apply(const struct shaping *sh, int64_t unix_start, struct shape_job *jobs, size_t n,
                bool *keep, struct shaping_counts *out, char *err, size_t errlen);
/* shape_apply's last step: the gaps between the kept jobs' submit times,
 * from the first kept one, divided by load and rounded to whole seconds. */
void shape_scale(struct shape_job *jobs, size_t n, const bool *keep, double load);

#endif
