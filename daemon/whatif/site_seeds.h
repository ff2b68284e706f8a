/* A site sweep over seeds, summarized (backfilld --site ... --seeds A..B):
 * one line (or JSON object) per setting with each figure's mean, standard
 * deviation and 95% interval across the seeds (Student's t), and the
 * throughput's gain over the first setting of the same users, paired by
 * seed (the same seed draws the same users for every policy).
 *
 * res holds nsettings * nseeds results, each setting's seeds together and
 * in the same order; nseeds >= 1. 0, or -1 (no memory, or a write failed). */
#ifndef BF_SITE_SEEDS_H
#define BF_SITE_SEEDS_H
#include <stddef.h>
#include <stdio.h>
#include "site.h"

int site_seeds_text(FILE *out, const struct site_model *m, const struct site_result *res,
                    size_t nsettings, size_t nseeds);
int site_seeds_json(FILE *out, const struct site_model *m, const struct site_result *res,
                    size_t nsettings, size_t nseeds);

#endif
