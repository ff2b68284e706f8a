/* Site-level (closed-loop) simulation: simulated users whose next
 * submission depends on how their last jobs fared drive the same
 * scheduler core as the daemon and the replay (SCHEDULING.md, "Site-level
 * simulation"; backfilld(8), SITE SIMULATION).
 *
 * Each user has a class (by day or night, on weekdays or at weekends,
 * with a personal shift) and, while active, submits batches drawn from the
 * model: a batch width, job sizes that repeat in runs, runtimes and
 * estimates drawn whatever the size (or for it: joint_mix). When a batch's
 * last job (the last submitted) ends with response
 * R minutes, the user continues the session with probability
 * 0.8 / (0.05 R + 1), after a think time, or takes a break; outside its
 * window it sleeps until the next. Deterministic given the seed. */
#ifndef BF_SITE_H
#define BF_SITE_H
#include <stdint.h>
#include <stdio.h>
#include "metrics.h"
#include "sched.h"
#include "model.h"

/* Users are classed by day/night and weekday/weekend. */
enum { SITE_CLASSES = 4 };
const char *site_class_name(unsigned k);	/* "day-weekday", ... */

struct site_settings {
	uint32_t users, days;
	uint32_t nodes;		/* 0: the model's */
	enum sched_policy policy;
	double alpha;
	uint64_t seed;
	/* A job's runtime and estimate drawn for its size, as the trace had
	 * them together (joint), or from the whole mix whatever the size
	 * (independent: the paper's users, whose size and runtime are drawn
	 * from their own distributions). */
	bool joint_mix;
	/* Every job's estimate is its runtime (the paper's job model draws no
	 * estimate), rather than the one the trace had with that runtime. */
	bool exact_estimates;
};

struct site_group {
	uint32_t users;
	uint64_t jobs_done;	/* ended within the days simulated */
	uint64_t sessions;	/* started within them */
	uint64_t submitted;	/* within them */
	struct metrics m;	/* every job submitted within them */
	/* Derived: jobs ended per hour; jobs per session. */
	double throughput, session_length;
	struct metrics_summary sum;
};

struct site_result {
	struct site_settings set;
	uint32_t nodes;
	struct site_group all, cls[SITE_CLASSES];
	uint64_t events;
	double wall_seconds;
};

/* The command line (site_cli.c): --characterize and --site. An exit status. */
int  site_main(int argc, char **argv);
void site_usage(FILE *f);

/* 0, or -1 with the reason on stderr. With jobs_out, every job simulated
 * as an SWF line (submit, wait, run, nodes, estimate, user: fields 2, 3,
 * 4, 5 and 8, 9, 12; status 1, or 0 for a job killed at its estimate). */
int site_run(const struct site_model *m, const struct site_settings *set, struct site_result *r,
             FILE *jobs_out);

void site_report_text(FILE *out, const struct site_model *m, const struct site_result *r);
void site_report_json(FILE *out, const struct site_model *m, const struct site_result *r);
/* One CSV row per result, after a header line when `header`. */
void site_report_csv(FILE *out, const struct site_result *r, bool header);

#endif
