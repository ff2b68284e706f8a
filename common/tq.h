/* A timed queue: a binary min-heap of (time, id), earliest first, equal
 * times in id order, so that a simulation that pops it is deterministic.
 * Used by the replay (job ends) and the site simulation (ends and users'
 * next actions). */
#ifndef BF_TQ_H
#define BF_TQ_H
#include <stddef.h>
#include <stdint.h>
#include "bf_time.h"

struct tq {
	bf_time *t;
	uint32_t *id;
	size_t len, cap;
};

/* Room for n entries: pushes up to then cannot fail. 0 or -1. */
int  tq_reserve(struct tq *q, size_t n);
/* 0, or -1 if memory ran out (the queue is unchanged). */
int  tq_push(struct tq *q, bf_time t, uint32_t id);
/* The earliest id; the queue must not be empty. */
uint32_t tq_pop(struct tq *q);
static inline bf_time tq_first(const struct tq *q) { return q->len ? q->t[0] : BF_NEVER; }
void tq_free(struct tq *q);

#endif
