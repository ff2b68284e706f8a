/* Sweeps: one trace replayed over a grid of settings (policies x estimate
 * models x loads x machine sizes x seeds), in parallel over the machine's
 * cores, with every setting in each result row. A cell is numbered, so one
 * cell can run alone (an array of batch jobs spreads a large sweep over
 * many machines). */
#ifndef BF_SWEEP_H
#define BF_SWEEP_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "replay.h"

#define GRID_MAX 64
#define GRID_MAX_SEEDS 1000

struct grid {
	enum sched_policy policy[GRID_MAX];
	size_t npolicy;
	struct est_model est[GRID_MAX];
	size_t nest;
	double load[GRID_MAX];
	size_t nload;
	uint32_t nodes[GRID_MAX];	/* 0: the trace's own */
	size_t nnodes;
	uint64_t seed[GRID_MAX_SEEDS];
	size_t nseed;
};

/* The figures of one cell, plain data (workers write them to memory they
 * share with the parent). */
struct cell_row {
	int state;			/* 0 not run, 1 done, -1 failed */
	struct replay_settings set;
	uint32_t nodes;			/* as replayed */
	uint64_t jobs, killed, backfilled, extended;
	double utilization, est_accuracy, wall_s;
	struct bd_dist wait, response, bsld;
	struct stats_bm ci_wait, ci_bsld;
};

size_t grid_cells(const struct grid *g);
/* Cell k's index along each dimension: policy outermost, seed innermost. */
struct grid_at {
	size_t policy, est, load, nodes, seed;
};
struct grid_at grid_decode(const struct grid *g, size_t k);
/* Cell k's settings: base with the grid's values at grid_decode(k). */
void grid_cell(const struct grid *g, size_t k, const struct replay_settings *base,
               struct replay_settings *out);
/* Does the grid vary more than the seed? */
int grid_dims(const struct grid *g);

struct sweep_opts {
	unsigned parallel;	/* worker processes; 0: one per online CPU */
	long cell;		/* -1: all; else only this one */
	const char *plot;	/* SVG of a metric against the swept parameter */
	const char *metric;	/* bsld (default), wait, response, utilization */
	bool progress;		/* a progress bar on standard error */
};

/* Run the grid on tr and print it on out in o->format. Returns 0, or -1
 * (a cell failed; messages on stderr). */
int sweep_run(const struct trace *tr, const struct replay_opts *o, const struct grid *g,
              const struct sweep_opts *so, FILE *out);

/* A metric of a row by name (for plots and comparisons); NaN if unknown. */
double cell_metric(const struct cell_row *r, const char *metric);
int cell_metric_known(const char *metric);

#endif
