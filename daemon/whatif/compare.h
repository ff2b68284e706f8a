/* --compare A,B: the same jobs replayed two ways (two policies, two
 * estimate models, or both), and the per-job paired difference A - B of
 * response time and bounded slowdown with its 90% batch-means interval,
 * overall, per month and per runtime and size class, side by side; with
 * --seeds, the two sides paired by seed instead. */
#ifndef BF_COMPARE_H
#define BF_COMPARE_H
#include <stdio.h>
#include "jsonw.h"
#include "replay.h"
#include "sweep.h"

/* "easy", "conservative", "exact", "f=4", or "policy/estimates"
 * ("easy/exact"): what of base the side changes. 0, or -1 with err. */
int compare_side_parse(const char *spec, const struct replay_settings *base,
                       struct replay_settings *out, char *err, size_t errlen);

/* "policy/model", as the reports name a side. */
void compare_side_name(const struct replay_settings *s, char *buf, size_t len);
/* The load both sides share: a line when shaped (--load, --utilization);
 * in JSON load, utilization_target (null without) and offered_load. */
void compare_load_text(FILE *out, double load, double target, double offered);
void compare_load_json(struct jw *w, double load, double target, double offered);
/* The dependencies both sides honoured, when the trace has any (JSON
 * dependencies: mode, with_predecessor, honoured). */
struct replay_dep_counts;
void compare_deps_json(struct jw *w, const struct replay_dep_counts *d);

/* Replay both sides of tr and print the comparison on out in o->format;
 * plot (may be NULL): an SVG of the metric per month, A's bars beside B's.
 * Returns 0 or -1 (messages on stderr). */
int compare_run(const struct trace *tr, const struct replay_opts *o,
                const struct replay_settings *a, const struct replay_settings *b,
                const char *plot, const char *metric, FILE *out);

/* --compare A,B --seeds (compare_seeds.c): both sides replayed with each
 * of the nseed seeds (a side whose estimates do not use the seed, once),
 * in so->parallel workers, paired by seed; for each figure (the averages
 * of bounded slowdown, response and wait, the 90th percentiles of
 * bounded slowdown and wait, utilization, killed jobs) the mean of A - B
 * and of (A - B) / B over the seeds with 95% Student t intervals, and
 * the seeds each side won. Text or JSON on out. 0, or -1 (stderr). */
int compare_seeds_run(const struct trace *tr, const struct replay_opts *o,
                      const struct replay_settings *a, const struct replay_settings *b,
                      const uint64_t *seed, size_t nseed, const struct sweep_opts *so,
                      FILE *out);

#endif
