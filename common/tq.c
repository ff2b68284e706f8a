/* A timed queue (see tq.h). */
#include <stdlib.h>
#include <string.h>
#include "tq.h"

static int before(const struct tq *q, size_t i, bf_time t, uint32_t id)
{
	return q->t[i] < t || (q->t[i] == t && q->id[i] < id);
}

int tq_reserve(struct tq *q, size_t n)
{
	bf_time *nt;
	uint32_t *ni;

	if (n <= q->cap)
		return 0;
	if (!(nt = realloc(q->t, n * sizeof *nt)))
		return -1;
	q->t = nt;
	if (!(ni = realloc(q->id, n * sizeof *ni)))
		return -1;
	q->id = ni;
	q->cap = n;
	return 0;
}

int tq_push(struct tq *q, bf_time t, uint32_t id)
{
	size_t i;

	if (q->len == q->cap && tq_reserve(q, q->cap ? 2 * q->cap : 256) < 0)
		return -1;
	for (i = q->len++; i > 0 && !before(q, (i - 1) / 2, t, id); i = (i - 1) / 2) {
		q->t[i] = q->t[(i - 1) / 2];
		q->id[i] = q->id[(i - 1) / 2];
	}
	q->t[i] = t;
	q->id[i] = id;
	return 0;
}

uint32_t tq_pop(struct tq *q)
{
	uint32_t top = q->id[0], x = q->id[--q->len];
	bf_time t = q->t[q->len];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= q->len)
			break;
		if (c + 1 < q->len && before(q, c + 1, q->t[c], q->id[c]))
			c++;
		if (!before(q, c, t, x))
			break;
		q->t[i] = q->t[c];
		q->id[i] = q->id[c];
		i = c;
	}
	q->t[i] = t;
	q->id[i] = x;
	return top;
}

void tq_free(struct tq *q)
{
	free(q->t);
	free(q->id);
	memset(q, 0, sizeof *q);
}
