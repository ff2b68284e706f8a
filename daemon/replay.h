/* Replay mode: an SWF trace through the scheduler core under a virtual
 * clock that jumps from event to event.
 *
 * Input rules (also in --help, the man page and the report):
 *   size      field 8 (requested processors) if > 0, else field 5 (allocated)
 *   runtime   field 4; estimate field 9 if > 0, else the runtime
 *   a job running past its estimate is killed at it (runtime cut, counted)
 *   skipped, counted by reason: no usable size, negative (unknown) runtime,
 *   negative submit time, a time beyond 100 years, more nodes than the machine
 *   same instant: ends first, then arrivals in file order
 *   queue order is arrival order; a file not sorted by submit time is
 *   stably sorted (and the count of out-of-order lines reported). */
#ifndef BF_REPLAY_H
#define BF_REPLAY_H
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include "metrics.h"
#include "sched.h"

enum report_format { REPORT_TEXT, REPORT_JSON };

/* The largest machine a replay sets up (the node set costs ~14 bytes a node). */
#define REPLAY_MAX_NODES (16u * 1024 * 1024)

struct replay_opts {
	const char *trace;		/* path, or "-" for stdin */
	enum sched_policy policy;	/* default EASY */
	uint32_t nodes;			/* 0: from the header */
	enum report_format format;
	const char *jobs_out;		/* NULL: none */
	bool check;			/* verify invariants after every event */
	bool lenient;			/* skip malformed lines instead of failing */
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

struct replay_result {
	const char *trace;
	enum sched_policy policy;
	uint32_t nodes;
	const char *nodes_source;	/* "--nodes", "MaxProcs" or "MaxNodes" */
	uint64_t jobs_read;		/* job lines in the trace */
	uint64_t skipped[SKIP_NREASONS];
	uint64_t reordered;		/* lines whose submit was before the previous line's */
	struct metrics_summary m;	/* jobs, killed, backfilled, times ... */
	uint64_t events;		/* arrivals + ends fed to the core */
	uint64_t checks;		/* full invariant checks run (--check) */
	struct sched_stats stats;
	double wall_seconds;		/* the replay's own run time */
	double events_per_second;
};

/* Run a replay. Returns 0, or -1 with a message already printed to stderr
 * (unreadable trace, malformed lines without lenient, an invariant broken). */
int replay_run(const struct replay_opts *o, struct replay_result *res);
/* Print the report (text or JSON) on out. */
void report_print(FILE *out, const struct replay_result *r, enum report_format f);

#endif
