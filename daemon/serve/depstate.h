/* A job's dependency condition in memory (depend.c evaluates it): the
 * parsed tree, the jobs each of its atoms named at the submission, and
 * what is known of those that ended (their fate never changes). Freed with
 * the job (jobs.c). */
#ifndef BF_SERVE_DEPSTATE_H
#define BF_SERVE_DEPSTATE_H
#include <stdbool.h>
#include <stdint.h>
#include "depexpr.h"

/* The most jobs one condition may name, all parts together. */
#define DEPEND_MAX_JOBS 10000

struct djob_dep {
	struct depexpr *expr;
	uint32_t natoms;
	uint32_t *first;		/* per atom, its first id; first[natoms] = nids */
	uint64_t *ids;
	uint32_t nids;
	struct dep_fact *fact;		/* per id: known once it ended */
	bool *known;
	bool waiting;			/* undecided (set when it entered the core) */
};

/* From the kept forms (store_job.depend, .depend_ids); NULL if either is
 * missing or malformed, or memory ran out. */
struct djob_dep *depstate_load(const char *text, const char *ids);
void depstate_free(struct djob_dep *dd);

#endif
