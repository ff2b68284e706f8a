/* A job array's own line for bq (its elements by state), while any
 * element lives (from memory) or after (from the store). */
#ifndef BF_SERVE_ARRAYLINE_H
#define BF_SERVE_ARRAYLINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct daemon;
struct darray;
struct proto_job;

/* The strings the line points to. */
struct arrayline_buf {
	char name[600], counts[400], user[64];
};

/* The line of a live array: state "array", its name with its indices
 * ("sweep[1-100]%10"), its elements' counts, the earliest start of its
 * elements that has one. */
void arrayline_live(struct daemon *d, const struct darray *a, struct proto_job *pj,
                    struct arrayline_buf *b);
/* The line of array `id` from the store (every element ended): state
 * "done" if every element is done, else "exit", with an exit status of
 * 0 or 1 accordingly (what bsub -K exits with). 1 made, 0 no such array,
 * -1 the store failed. */
int  arrayline_stored(struct daemon *d, uint64_t id, struct proto_job *pj,
                      struct arrayline_buf *b);

#endif
