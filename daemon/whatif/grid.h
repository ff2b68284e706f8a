/* A sweep's grid: policies x estimate models x loads x machine sizes x
 * seeds, each cell numbered (policy outermost, seed innermost) so that one
 * cell can run alone; and the figures of one cell's replay, which the
 * sweep's output (sweep_out.c) and comparisons read. */
#ifndef BF_GRID_H
#define BF_GRID_H
#include <stddef.h>
#include <stdint.h>
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
	bool load_target;		/* load[] holds offered loads to reach
					 * (--utilization), not factors (--load) */
	uint32_t nodes[GRID_MAX];	/* 0: the trace's own */
	size_t nnodes;
	uint64_t seed[GRID_MAX_SEEDS];
	size_t nseed;
};

/* The figures of one cell, plain data (workers write them to memory they
 * share with the parent). */
struct cell_row {
	int state;			/* 0 not run, 1 done, -1 failed */
	bool replayed;			/* false: the figures are those of cell
					 * same_as, which differs in the seed only,
					 * under a model that draws nothing */
	size_t same_as;
	struct replay_settings set;
	uint32_t nodes;			/* as replayed */
	uint64_t jobs, skipped, killed, backfilled, extended;
	double load, offered_load;	/* the load factor used, the offered load reached */
	double utilization, est_accuracy, wall_s;
	struct bd_dist wait, response, bsld;
	struct stats_bm ci_wait, ci_bsld;
	struct replay_dep_counts deps;	/* the same shown in every cell */
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
/* The cell whose replay gives cell k's figures: k itself, or, when k's
 * estimate model does not use the seed (est_uses_seed), the cell of its
 * setting's first seed. */
size_t grid_source(const struct grid *g, size_t k);
/* Does the grid vary more than the seed? */
int grid_dims(const struct grid *g);

/* A metric of a row by name (for plots and comparisons); NaN if unknown. */
double cell_metric(const struct cell_row *r, const char *metric);
int cell_metric_known(const char *metric);

#endif
