/* The what-if parts of a replay's report: settings and shaping, the
 * distributions, confidence intervals and breakdowns (report_whatif.c).
 * report.c calls these after the figures it has always printed, so the
 * JSON keys before them keep their order. */
#ifndef BF_REPORT_WHATIF_H
#define BF_REPORT_WHATIF_H
#include <stdio.h>
#include "breakdown.h"
#include "jsonw.h"
#include "replay.h"

void report_whatif_json(struct jw *w, const struct replay_result *r);
void report_whatif_text(FILE *out, const struct replay_result *r);
/* A group's figures as JSON members (also for sweeps and comparisons). */
void report_group_json(struct jw *w, const struct bd_group *g);
/* {avg, median, p90, p99} as the member key. */
void report_dist_json(struct jw *w, const char *key, const struct bd_dist *d);
/* "avg A, median M, p90 P, p99 Q" with the given printf precision. */
void report_dist_text(FILE *out, const struct bd_dist *d, int prec);
/* "mean ± half (90%, k batches of b jobs after w warm-up)", or why not. */
void report_ci_text(FILE *out, const struct stats_bm *bm, uint32_t batch, uint32_t warmup,
                    int prec);

#endif
