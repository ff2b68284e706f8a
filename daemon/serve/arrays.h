/* Job arrays (bsub -J "name[1-100]%10"): one submission, one script and
 * one copy of its arguments and environment, and an element per index,
 * each a job of its own to the core and the store (ids A, A + 1, ..,
 * A + count - 1, in index order, A the array's id). The daemon keeps what
 * the elements share while any of them is live (struct darray), and the
 * counts of those that ended, for listings. */
#ifndef BF_SERVE_ARRAYS_H
#define BF_SERVE_ARRAYS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sys/store.h"

struct daemon;
struct djob;

/* The most elements one array may have here (jobarray.h allows more:
 * LSF's MAX_JOB_ARRAY_SIZE is a site's choice; this is ours). */
#define ARRAYS_MAX_ELEMENTS 100000

struct darray {
	uint64_t id;			/* its first element's */
	uint32_t uid;
	char *name, *spec;		/* spec: "[1-100]%10" */
	uint32_t count, cap;		/* cap: %K, 0 none */
	uint32_t *index;		/* element id - id -> its index, ascending */
	char *argv, *env;		/* shared by every element */
	size_t argv_len, env_len;
	uint32_t live;			/* elements queued or running */
	/* With a cap: per lane (element position mod cap), the element that
	 * entered the core last, which the next to enter follows (0: none). */
	uint64_t *lane_last;
	uint32_t ended[ST_NSTATES];	/* elements ended, by state */
};

/* The live array with this id; NULL if none (or all its elements ended). */
struct darray *arrays_get(struct daemon *d, uint64_t id);
/* A new array, its strings and indices copied; live 0 (each element
 * counted as it is added: arrays_element_live). NULL: no memory. */
struct darray *arrays_add(struct daemon *d, uint64_t id, uint32_t uid, const char *name,
                          const char *spec, const uint32_t *index, uint32_t count, uint32_t cap,
                          const char *argv, size_t argv_len, const char *env, size_t env_len);
void arrays_element_live(struct darray *a);
/* An element's end, counted once (stored final): returns true when it
 * was the last live one; the array then leaves memory (the caller
 * removes what the elements shared: its arguments' row, its spool). */
bool arrays_element_ended(struct daemon *d, const struct store_job *r);
/* The id of the element with that index, 0 if none. */
uint64_t arrays_element_id(const struct darray *a, uint32_t index);
/* The same for array `id` live or ended (then from the store). */
uint64_t arrays_find_element(struct daemon *d, uint64_t id, uint32_t index);
/* A change asked of a live array's id (bkill, bstop, ...): fn for each of
 * its live elements, in index order, until the array leaves memory (its
 * last element ended). The answers merged, as for one job: PE_OK if any
 * element took it, else the first other answer than PE_DONE, else
 * PE_DONE (none was live). */
int arrays_each_live(struct daemon *d, const struct darray *a,
                     int (*fn)(uint64_t id, void *arg), void *arg);
/* "name[index]", as LSF names an element (LSB_JOBNAME), into buf. */
const char *arrays_element_name(const struct store_job *r, char *buf, size_t len);
/* Visit every live array; stop when visit returns non-zero. */
void arrays_foreach(struct daemon *d, int (*visit)(struct darray *a, void *arg), void *arg);
void arrays_free_all(struct daemon *d);

#endif
