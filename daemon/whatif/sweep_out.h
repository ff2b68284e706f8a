/* A sweep's results: CSV (one row per cell, every setting in it), JSON
 * (the cells and a summary over seeds), a text table of the summary, and
 * an SVG plot of a metric against the swept parameter. */
#ifndef BF_SWEEP_OUT_H
#define BF_SWEEP_OUT_H
#include <stdio.h>
#include "grid.h"

/* The plot a sweep asks for, if any. */
struct sweep_plot {
	const char *plot;	/* SVG of a metric against the swept parameter; NULL: none */
	const char *metric;	/* bsld (default), wait, response, utilization */
};

/* rows: cells first .. first + count - 1 of the grid. 0, or -1 (the plot
 * could not be written). */
int sweep_print(FILE *out, const struct replay_opts *o, const struct grid *g,
                const struct sweep_plot *so, const struct cell_row *rows, size_t first,
                size_t count);

#endif
