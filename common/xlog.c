/* Suffix extremes over an append-only log; see xlog.h. */
#include <stdlib.h>
#include "xlog.h"

void xlog_init(struct xlog *x, bool want_max)
{
	*x = (struct xlog){ .want_max = want_max };
}

void xlog_destroy(struct xlog *x)
{
	free(x->epoch);
	free(x->val);
	xlog_init(x, x->want_max);
}

static bool beats(const struct xlog *x, int64_t a, int64_t b)
{
	return x->want_max ? a >= b : a <= b;
}

void xlog_add(struct xlog *x, uint64_t epoch, int64_t val)
{
	while (x->len > x->head && beats(x, val, x->val[x->len - 1]))
		x->len--;
	if (x->len == x->cap) {
		/* Grow, and move the live entries to the front. */
		uint32_t live = x->len - x->head, cap = live * 2 + 64;
		uint64_t *ne = live <= UINT32_MAX / 4 ? malloc(cap * sizeof *ne) : NULL;
		int64_t *nv = ne ? malloc(cap * sizeof *nv) : NULL;

		if (!nv) {
			free(ne);
			x->lost = epoch;
			return;
		}
		for (uint32_t k = 0; k < live; k++) {
			ne[k] = x->epoch[x->head + k];
			nv[k] = x->val[x->head + k];
		}
		free(x->epoch);
		free(x->val);
		x->epoch = ne;
		x->val = nv;
		x->head = 0;
		x->len = live;
		x->cap = cap;
	}
	x->epoch[x->len] = epoch;
	x->val[x->len++] = val;
}

int64_t xlog_after(const struct xlog *x, uint64_t since, int64_t none, int64_t unknown)
{
	uint32_t lo = x->head, hi = x->len;

	if (since < x->lost)
		return unknown;
	while (lo < hi) {	/* the first entry with a later epoch */
		uint32_t mid = lo + (hi - lo) / 2;

		if (x->epoch[mid] > since)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* Values fall (max) or rise (min) along the stack: the first entry
	 * after `since` is the extreme of all of them. */
	return lo < x->len ? x->val[lo] : none;
}

void xlog_forget(struct xlog *x, uint64_t oldest)
{
	while (x->head < x->len && x->epoch[x->head] <= oldest)
		x->head++;
	if (x->head == x->len)
		x->head = x->len = 0;
}
