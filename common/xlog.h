/* An append-only log of (epoch, value) pairs that answers "the largest (or
 * smallest) value logged after epoch e" in O(log n), keeping only the
 * entries that can still be an answer: a monotone stack, where an entry
 * beaten by a later one is dropped, since every question that sees the
 * older entry sees the later one too. Epochs must increase. */
#ifndef BF_XLOG_H
#define BF_XLOG_H
#include <stdbool.h>
#include <stdint.h>

struct xlog {
	uint64_t *epoch;
	int64_t *val;
	uint32_t head, len, cap;
	uint64_t lost;		/* an entry at this epoch could not be stored */
	bool want_max;		/* keep the largest value, else the smallest */
};

void xlog_init(struct xlog *x, bool want_max);
void xlog_destroy(struct xlog *x);
/* Log a value. If memory runs out the entry is lost, and xlog_after()
 * answers `unknown` for every epoch before it. */
void xlog_add(struct xlog *x, uint64_t epoch, int64_t val);
/* The extreme value logged at an epoch > since; `none` if there is none,
 * `unknown` if an entry after `since` was lost. */
int64_t xlog_after(const struct xlog *x, uint64_t since, int64_t none, int64_t unknown);
/* Forget entries at epochs <= oldest: nobody will ask about them. */
void xlog_forget(struct xlog *x, uint64_t oldest);

#endif
