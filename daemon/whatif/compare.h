/* --compare A,B: the same jobs replayed two ways (two policies, two
 * estimate models, or both), and the per-job paired difference A - B of
 * response time and bounded slowdown with its 90% batch-means interval,
 * overall, per month and per runtime and size class, side by side. */
#ifndef BF_COMPARE_H
#define BF_COMPARE_H
#include <stdio.h>
#include "replay.h"

/* "easy", "conservative", "exact", "f=4", or "policy/estimates"
 * ("easy/exact"): what of base the side changes. 0, or -1 with err. */
int compare_side_parse(const char *spec, const struct replay_settings *base,
                       struct replay_settings *out, char *err, size_t errlen);

/* Replay both sides of tr and print the comparison on out in o->format;
 * plot (may be NULL): an SVG of the metric per month, A's bars beside B's.
 * Returns 0 or -1 (messages on stderr). */
int compare_run(const struct trace *tr, const struct replay_opts *o,
                const struct replay_settings *a, const struct replay_settings *b,
                const char *plot, const char *metric, FILE *out);

#endif
