/* Sweeps: one trace replayed over a grid of settings (policies x estimate
 * models x loads x machine sizes x seeds), in parallel over the machine's
 * cores, with every setting in each result row. A cell is numbered, so one
 * cell can run alone (an array of batch jobs spreads a large sweep over
 * many machines). A setting whose estimate model does not use the seed is
 * replayed once, not once per seed. */
#ifndef BF_SWEEP_H
#define BF_SWEEP_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "grid.h"
#include "replay.h"

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

/* Cells as functions give them: a grid's, or a comparison's two sides
 * over seeds (compare_seeds.c). */
struct sweep_cells {
	size_t n;
	/* Cell k's settings: base, changed as the cell says. */
	void (*settings)(const void *arg, size_t k, const struct replay_settings *base,
	                 struct replay_settings *out);
	/* The cell whose replay gives k's figures: k, or an earlier cell that
	 * differs from k in the seed only, under an estimate model that does
	 * not use it (est_uses_seed). Such a cell is not replayed again. */
	size_t (*source)(const void *arg, size_t k);
	const void *arg;
};

/* Replay cells [first, first + count) of c (all of them: first 0, count
 * c->n) in worker processes, and give their rows (row k - first for cell
 * k): each one replayed, or filled from the cell its source names. A
 * single cell is replayed whatever its source. NULL when a cell failed or
 * memory ran out (messages on stderr); else free with sweep_rows_free. */
struct cell_row *sweep_rows(const struct trace *tr, const struct replay_opts *o,
                            const struct sweep_cells *c, const struct sweep_opts *so,
                            size_t first, size_t count);
void sweep_rows_free(struct cell_row *rows);

#endif
