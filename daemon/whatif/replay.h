/* Replay mode: an SWF trace through the scheduler core under a virtual
 * clock that jumps from event to event.
 *
 * Input rules (also in --help, the man page and the report):
 *   size      field 8 (requested processors) if > 0, else field 5 (allocated)
 *   runtime   field 4; estimate field 9 if > 0, else the runtime
 *             (or the estimate model's, estimates.h)
 *   a job running past its estimate is killed at it (runtime cut, counted)
 *   skipped, counted by reason: no usable size, negative (unknown) runtime,
 *   negative submit time, a time beyond 100 years, more nodes than the machine
 *   same instant: ends first, then arrivals in file order, one scheduling
 *   pass per instant; or with per_event the literature's order (pyss): the
 *   ends at the jobs' limits give their nodes back first, then arrivals in
 *   file order, then ends in the order the jobs started, a pass after each
 *   queue order is arrival order; a file not sorted by submit time is
 *   stably sorted (and the count of out-of-order lines reported).
 *   workflows (SWF fields 17 and 18), when honoured: a job whose preceding
 *   job is an earlier line of the trace and is replayed is submitted at
 *   max(its own submit time, that job's simulated end + the think time);
 *   its waits count from then. Other references are ignored and counted.
 *
 * A trace is read once (replay_load) and replayed any number of times with
 * different settings (replay_cell): seeds, comparisons and sweeps share it. */
#ifndef BF_REPLAY_H
#define BF_REPLAY_H
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include "breakdown.h"
#include "estimates.h"
#include "metrics.h"
#include "sched.h"
#include "shaping.h"

enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_CSV };

/* The largest machine a replay sets up (the node set costs ~14 bytes a node). */
#define REPLAY_MAX_NODES (16u * 1024 * 1024)

/* SWF fields 17 (preceding job) and 18 (think time): --dependencies. */
enum replay_deps {
	DEPS_AUTO,	/* the default: TRACE if a job names an earlier job of the
			 * trace, else NONE (nothing to honour) */
	DEPS_TRACE,	/* honoured */
	DEPS_NONE,	/* ignored: every job arrives at its own submit time */
};

/* What a cell of a replay is: everything that can vary between two replays
 * of one trace. */
struct replay_settings {
	enum sched_policy policy;	/* default EASY */
	double alpha;			/* CREASY's */
	uint32_t nodes;			/* 0: from the header */
	bool per_event;			/* the literature's event order */
	struct est_model est;		/* default trace */
	uint64_t seed;			/* for the estimate models' draws; default 1 */
	struct shaping shape;		/* load, window, users, flurries */
	enum replay_deps deps;		/* default AUTO */
};

struct replay_opts {
	const char *trace;		/* path, or "-" for stdin */
	struct replay_settings set;
	enum report_format format;
	const char *jobs_out;		/* NULL: none */
	bool check;			/* verify invariants after every event */
	bool lenient;			/* skip malformed lines instead of failing */
	bool progress;			/* a progress line on standard error (a
					 * single replay on a terminal) */
	struct bd_opts bd;		/* batch means */
};

enum replay_skip {
	SKIP_NO_SIZE,		/* fields 8 and 5 both <= 0 */
	SKIP_NO_RUNTIME,	/* field 4 < 0 */
	SKIP_BAD_SUBMIT,	/* field 2 < 0 */
	SKIP_BAD_TIME,		/* submit, runtime or estimate beyond 100 years */
	SKIP_TOO_LARGE,		/* more nodes than the machine */
	SKIP_MALFORMED,		/* unparsable line, only with lenient */
	SKIP_NREASONS
};
const char *replay_skip_name(enum replay_skip why);	/* stable JSON key */

/* Why a simulated job's field 17 was not honoured; the first that applies. */
enum replay_dep_ignored {
	DEP_NOT_EARLIER,	/* no earlier line of the trace has that job number */
	DEP_NOT_REPLAYED,	/* that job was skipped or left out by shaping */
	DEP_BAD_THINK,		/* field 18 beyond 100 years */
	DEP_OFF,		/* --dependencies none */
	DEP_NREASONS
};
const char *replay_dep_ignored_name(enum replay_dep_ignored why);	/* stable JSON key */
const char *replay_deps_name(enum replay_deps mode);	/* "trace", "none" */

/* What the dependencies did in a replay. with_pred = honoured + every
 * ignored count. */
struct replay_dep_counts {
	enum replay_deps mode;		/* as used: DEPS_TRACE or DEPS_NONE */
	bool shown;			/* reported: the trace names a preceding job
					 * (field 17 > 0), or --dependencies was given;
					 * else the reports are as they were without */
	uint64_t with_pred;		/* simulated jobs whose field 17 names a job */
	uint64_t honoured;
	uint64_t ignored[DEP_NREASONS];
	uint64_t delayed;		/* honoured jobs submitted after their own
					 * submit time (their predecessor's end and
					 * think time came later) */
	double delay_avg;		/* by how much, on average, in seconds */
};

struct replay_result {
	const char *trace;
	enum sched_policy policy;
	double alpha;			/* CREASY's */
	uint32_t nodes;
	const char *nodes_source;	/* "--nodes", "MaxProcs" or "MaxNodes" */
	uint32_t trace_nodes;		/* the trace's own size (0: unknown) */
	uint64_t jobs_read;		/* job lines in the trace */
	uint64_t skipped[SKIP_NREASONS];
	uint64_t reordered;		/* lines whose submit was before the previous line's */
	struct replay_dep_counts deps;
	struct metrics_summary m;	/* jobs, killed, backfilled, times ... */
	uint64_t events;		/* arrivals + ends fed to the core */
	uint64_t checks;		/* full invariant checks run (--check) */
	struct sched_stats stats;
	double wall_seconds;		/* the replay's own run time */
	double events_per_second;
	/* What-if settings and what they did. */
	bool per_event;
	struct est_model est;
	uint64_t seed;
	struct shaping shape;		/* as asked; with a target utilization,
					 * load is the factor that reached it */
	struct shaping_counts shaped;
	double offered_load;		/* of the jobs replayed, after shaping
					 * (offered.h); NaN with no span */
	uint64_t extended;		/* history: predictions that ran out, extended */
	uint64_t broken;		/* promises those extensions moved later */
	double est_accuracy;		/* mean of r / e over jobs with e > 0 */
	struct breakdown *bd;		/* distributions, classes, months, batch means;
					 * owned (replay_result_free) */
};

struct trace;	/* a trace read once, replayed many times */

/* Read a trace. Malformed lines are errors (the first few shown), or
 * counted and skipped with lenient. Returns NULL with a message on stderr. */
struct trace *replay_load(const char *path, bool lenient, bool keep_records);
void replay_trace_free(struct trace *tr);

/* Replay tr with the settings; fill res (replay_result_free it). With
 * jobs non-NULL, the simulated jobs are kept there (free jobs->j).
 * Returns 0, or -1 with a message on stderr. */
int  replay_cell(const struct trace *tr, const struct replay_opts *o,
                 const struct replay_settings *set, struct replay_result *res,
                 struct replay_jobs *jobs);
void replay_result_free(struct replay_result *res);
/* The trace's UnixStartTime (-1: unknown), for calendar months. */
int64_t replay_unix_start(const struct trace *tr);

/* Load, one cell with o->set, optional --jobs-out; what the plain
 * --replay does. */
int  replay_run(const struct replay_opts *o, struct replay_result *res);
/* Print the report (text or JSON) on out; with tables, the text report
 * shows the breakdowns too. */
void report_print(FILE *out, const struct replay_result *r, enum report_format f);
void report_print_tables(FILE *out, const struct replay_result *r);

/* The replay's command line (replay_cli.c): argv as main got it. */
int  replay_main(int argc, char **argv);
void replay_usage(FILE *f);

#endif
