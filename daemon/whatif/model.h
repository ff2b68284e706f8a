/* A site's workload as the site-level simulation draws from it
 * (SCHEDULING.md, "Site-level simulation"), characterized from an SWF
 * trace: the users' think times within sessions and their breaks, batch
 * widths, runs of equal job size, and the joint distribution of size,
 * runtime and estimate. Written to and read from a small text file
 * (backfilld(8), SITE SIMULATION):
 *
 *   backfilld-site-model 1
 *   source NAME             the trace it came from
 *   nodes N                 that machine's size
 *   think SECONDS COUNT     gaps within sessions (0 .. 20 min)
 *   break SECONDS COUNT     gaps between sessions (20 min .. 8 h; longer ones left out)
 *   width JOBS COUNT        jobs per batch
 *   run NODES LENGTH COUNT  runs of jobs of one size, one after another
 *   job NODES RUN EST COUNT runtime and estimate in seconds (EST -1: none)
 *
 * '#' starts a comment; every line is checked, with FILE:LINE messages. */
#ifndef BF_MODEL_H
#define BF_MODEL_H
#include <stdint.h>
#include <stdio.h>
#include "session.h"

/* The largest machine a simulation sets up, as a replay (the node set costs
 * about 14 bytes a node). */
#define MODEL_MAX_NODES (16u * 1024 * 1024)

struct model_job {
	uint32_t nodes;
	int64_t run, est;	/* seconds; est -1: none */
	uint64_t count;
};

struct model_run {
	uint32_t nodes, len;
	uint64_t count;
};

struct site_model {
	char source[256];
	uint32_t nodes;
	struct session_dist think, brk, width;	/* seconds, seconds, jobs */
	struct session_dist run_pick;		/* an index into runs, by count */
	struct model_run *runs;
	size_t nruns;
	/* Sorted by nodes; cum[i]: counts of jobs[0..i]; by size a range. */
	struct model_job *jobs;
	uint64_t *cum;
	size_t njobs;
	/* What the trace showed (the summary; 0 for a model read from a file). */
	uint64_t trace_jobs, trace_users, trace_sessions, trace_batches;
	/* Breaks longer than 8 hours, left out of the break distribution. */
	uint64_t trace_long_breaks;
};

/* From one trace or several, pooled (as Shmueli and Feitelson combine five
 * traces into one representative distribution of each kind): the model's
 * machine is the largest trace's. Errors printed to stderr. 0 or -1. */
int  model_characterize(const char *const *traces, size_t ntraces, struct site_model *m);
int  model_write(const struct site_model *m, FILE *out);
/* What the model holds, for people. */
void model_summary(const struct site_model *m, FILE *out);
/* Read a model file: every error as FILE:LINE: message on stderr. 0, -1. */
int  model_read(const char *path, struct site_model *m);
void model_free(struct site_model *m);

/* A draw of a job of `nodes` nodes (runtime and estimate); any job if the
 * model has none of that size, or nodes is 0. */
const struct model_job *model_draw_job(const struct site_model *m, uint32_t nodes,
                                       uint64_t *rng);

#endif
