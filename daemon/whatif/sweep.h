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

#endif
